import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { categorize, partOf, redisRows, selfTimes, type CpuProfile } from '../../bench/profile/analyze.js';

const test = suite('bench:profile: self times, parts, Redis rows');

test('a sample lasts the next time delta; idle is not counted; frames fall into their parts', () => {
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: { functionName: '(idle)', url: '' } },
      { id: 2, callFrame: { functionName: 'flush', url: 'file:///x/pipelock/dist/engine/coalescer.js' } },
      { id: 3, callFrame: { functionName: 'decode', url: 'file:///x/node_modules/@redis/client/dist/lib/RESP/decoder.js' } },
      { id: 4, callFrame: { functionName: 'writeUtf8String', url: '' } },
    ],
    samples: [2, 1, 3, 4, 2],
    timeDeltas: [0, 10, 500, 30, 60, 10],
  };
  const times = selfTimes(profile);
  assert.is(times.get('flush@file:///x/pipelock/dist/engine/coalescer.js')?.us, 20);
  assert.is(times.get('(idle)@'), undefined);
  const c = categorize(times, 10);
  assert.is(c.sampledUsPerCycle, 11);
  assert.equal(c.rows.map((r) => r.name), ['Node: socket write syscalls (native; kernel send on loopback)', '@redis/client: RESP decoder (replies)', 'pipelock: src/engine/coalescer.ts']);
  assert.is(c.rows[0]!.usPerCycle, 6);
  assert.ok(Math.abs(c.rows.reduce((s, r) => s + r.share, 0) - 1) < 1e-12);
  assert.is(partOf('(garbage collector)', ''), 'V8: garbage collection');
  assert.is(partOf('loop', 'file:///x/pipelock/bench/peers/adapters.ts'), 'benchmark loop (bench/)');
});

test('Redis rows: commandstats per cycle summed over masters, and what no command clock covers', () => {
  const before = ['used_cpu_sys:1.000000\r\nused_cpu_user:2.000000\r\n', 'used_cpu_sys:0.000000\r\nused_cpu_user:0.000000\r\n'];
  const after = [
    'cmdstat_evalsha:calls=10,usec=600,usec_per_call=60\r\ncmdstat_set:calls=100,usec=200,usec_per_call=2\r\ncmdstat_info:calls=1,usec=50\r\nused_cpu_sys:1.000500\r\nused_cpu_user:2.000500\r\n',
    'cmdstat_evalsha:calls=10,usec=400,usec_per_call=40\r\nused_cpu_sys:0.000500\r\nused_cpu_user:0.000500\r\n',
  ];
  const r = redisRows(before, after, 100);
  assert.is(r.totalUsPerCycle, 20);
  assert.is(r.rows[0]!.usPerCycle, 10);
  assert.is(r.rows[0]!.callsPerCycle, 0.2);
  assert.ok(r.rows[1]!.name.startsWith('SET'));
  assert.not.ok(r.rows.some((row) => row.name.startsWith('INFO')), 'our own INFO is not the workload');
  assert.is(r.rows.at(-1)!.usPerCycle, 10);
});

test.run();
