import '../helpers/setup.js';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { RunResult } from '../../tools/src/load/result.js';
import { childrenOf, cli, survivors } from '../helpers/cli.js';
import { timed } from '../helpers/timeout.js';

// The embedded default: the CLI starts its own masters, runs an open loop, and stops them.
const test = suite('loadtest open loop');

function describe(pid: number): string {
  try {
    return execFileSync('ps', ['-o', 'pid=,ppid=,stat=,args=', '-p', String(pid)], { encoding: 'utf8' }).trim();
  } catch {
    return `${pid} (gone)`;
  }
}

let dir = '';
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipelock-loadtest-'));
});
test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('--rate 100 over embedded masters keeps to the rate, timed from intended starts; its masters are gone after', timed(30_000, async () => {
  const json = join(dir, 'open.json');
  let children: number[] = [];
  const run = await cli(['loadtest', '--masters', '3', '--workers', '2', '--rate', '100', '--duration', '1.5', '--warmup', '0.5', '--json', json], {
    onStart: (child) => {
      children = childrenOf(child.pid!);
    },
  });
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stdout, /3 embedded masters, 2 workers, open loop at 100\/s/);
  const result = JSON.parse(await readFile(json, 'utf8')) as RunResult;
  // 150 cycles are due in the 1.5 s window, and each counts however late it completes.
  assert.ok(result.cycles >= 148 && result.cycles <= 152, `cycles ${result.cycles}`);
  assert.ok(result.throughput >= 98 && result.throughput <= 102, `throughput ${result.throughput}`);
  assert.equal(result.errors, {});
  // Well within capacity nothing is behind schedule (a cycle due in the window's last instant may end just after it).
  assert.ok(result.late !== undefined && result.late <= 2, `late ${String(result.late)}`);
  assert.match(run.stdout, /\nlate +(none|[12] cycles)/);
  // The second wholly inside the window: the schedule's 100, give or take a cycle at each edge.
  const second = result.timeline.find((p) => p.second === 2);
  assert.ok(second !== undefined && !second.warmup && second.cycles >= 90 && second.cycles <= 110, `second 2: ${JSON.stringify(second)}`);
  assert.is(result.workers.reduce((n, w) => n + w.cycles, 0), result.cycles);
  assert.ok(children.length >= 3, `children while running: ${children.join()}`);
  assert.equal((await survivors(children)).map(describe), [], 'no child process outlives the run');
}));

test.run();
