import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runScripted, scriptedSection } from '../../bench/faults/scripted.js';

const test = suite('faults: scripted scenarios');

test('a script\'s exit code is its verdict and its stdout is kept without colour codes', async () => {
  const script = { name: 'x', fault: 'f', file: '../../test/helpers/print-and-exit.ts' };
  const ok = await runScripted(script, false);
  assert.is(ok.ok, true);
  assert.is(ok.output, 'figure 1\nfaults x: ok');
  const failed = await runScripted(script, true);
  assert.is(failed.ok, false, '--short makes the helper exit 1');
  assert.is(failed.output, 'figure 1\nfaults x: short');
});

test('the section names each verdict and shows each output; no results say so', () => {
  const text = scriptedSection([
    { name: 'a', fault: 'fault a', ok: true, output: 'fine' },
    { name: 'b', fault: 'fault b', ok: false, output: 'broken' },
  ]);
  assert.match(text, '| `a` | fault a | met |');
  assert.match(text, '| `b` | fault b | **FAILED** |');
  assert.match(text, '### `b`\n\n```text\nbroken\n```');
  assert.match(scriptedSection(undefined), 'Not run');
});

test.run();
