import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FOLDER_LIMITS, folderViolations, layerOf, rankViolations } from '../../scripts/check-layers.js';

const test = suite('check-layers');

test('a file belongs to its top folder of src/, or is its own layer at the root', () => {
  assert.is(layerOf('src/engine/masters.ts'), 'src/engine');
  assert.is(layerOf('src/transport/cluster/slots.ts'), 'src/transport');
  assert.is(layerOf('src/redlock.ts'), 'src/redlock.ts');
  assert.is(layerOf('tools/src/cli/main.ts'), undefined);
});

test('imports down and within a folder pass; up, across to an equal rank, and unranked fail', () => {
  const tree = {
    'src/engine/masters.ts': [{ id: 'src/engine/attempt.ts' }, { id: 'src/transport/members.ts' }, { id: 'src/errors.ts' }, { id: null }],
    'src/redlock.ts': [{ id: 'src/lifecycle/acquire.ts' }],
  };
  assert.equal(rankViolations(tree), []);
  // The engine reaching up into waiting (what masters.ts once did), admission across to watch, a new folder nobody ranked.
  const bad = {
    'src/engine/masters.ts': [{ id: 'src/waiting/gate.ts' }],
    'src/admission/window.ts': [{ id: 'src/watch/hub.ts' }],
    'src/newlayer/x.ts': [{ id: 'src/errors.ts' }],
  };
  const problems = rankViolations(bad);
  assert.is(problems.length, 3);
  assert.match(problems[0]!, /src\/engine\/masters\.ts -> src\/waiting\/gate\.ts/);
  assert.match(problems[1]!, /src\/admission rank 5 -> src\/watch rank 5/);
  assert.match(problems[2]!, /has no rank/);
});

test('a limited folder holds at most its limit of files directly; its subfolders are not counted', () => {
  const limit = FOLDER_LIMITS['src/lifecycle']!;
  const own = Array.from({ length: limit }, (_, i) => `src/lifecycle/f${i}.ts`);
  const files = [...own, 'src/lifecycle/worker/thread.ts', 'src/lifecycle/worker/cells.ts', 'src/engine/masters.ts'];
  assert.equal(folderViolations(files), []);
  const problems = folderViolations([...files, 'src/lifecycle/grab-bag.ts']);
  assert.is(problems.length, 1);
  assert.match(problems[0]!, new RegExp(`src/lifecycle holds ${limit + 1} files, more than its ${limit}: .*grab-bag\\.ts`));
});

test.run();
