import '../helpers/setup.js';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { RunResult } from '../../tools/src/load/result.js';
import { childrenOf, cli, survivors } from '../helpers/cli.js';
import { timed } from '../helpers/timeout.js';

// Ctrl-C and SIGTERM mid-run: what was measured is still printed and written, the exit code says
// which signal, and no redis-server (or any other child) outlives the CLI.
const test = suite('loadtest signals');

let dir = '';
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipelock-loadtest-'));
});
test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
  test(`${signal} during a 60 s run: stops, prints and writes what was measured, exits ${code}, leaves no child`, timed(30_000, async () => {
    const json = join(dir, `${signal}.json`);
    let children: number[] = [];
    let signalledAt = 0;
    const run = await cli(['loadtest', '--masters', '3', '--workers', '2', '--concurrency', '4', '--duration', '60', '--warmup', '0.2', '--json', json], {
      onStart: (child) => {
        children = childrenOf(child.pid!);
        // Past the warm-up, so something was measured.
        setTimeout(() => {
          signalledAt = performance.now();
          child.kill(signal);
        }, 800);
      },
    });
    const stoppedInMs = performance.now() - signalledAt;
    assert.is(run.code, code, run.stderr);
    assert.ok(stoppedInMs < 8_000, `stopped ${Math.round(stoppedInMs)} ms after ${signal}`);
    assert.match(run.stderr, new RegExp(`${signal}, stopping`));
    assert.match(run.stdout, /interrupted: stopped early/);
    assert.match(run.stdout, /^acquire\s+\d+/m);
    const result = JSON.parse(await readFile(json, 'utf8')) as RunResult;
    assert.is(result.interrupted, true);
    assert.ok(result.cycles > 0, 'cycles > 0');
    assert.is(result.operations.cycle.count, result.cycles);
    assert.ok(result.measuredSeconds > 0.2 && result.measuredSeconds < 5, `measured ${result.measuredSeconds} s`);
    assert.ok(children.length >= 3, `children while running: ${children.join()}`);
    assert.equal((await survivors(children)).map(String), [], 'no child process outlives the run');
  }));
}

test.run();
