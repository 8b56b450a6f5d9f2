/**
 * Script calls per second of the simulated master (sim/master), one core, for the shapes pipelock
 * sends: the figure that bounds how many simulated acquisitions a deterministic run gets through.
 * Prints one JSON object with the host line; about 1 s per shape.
 *
 *   node --import tsx bench/sim/calls.ts
 */
import { SimMaster } from '../../sim/master/index.js';
import { callArgs, SCRIPTS, scriptLoadArgs } from '../../src/protocol/calls.js';
import { setNxArgs } from '../../src/protocol/calls.js';
import type { OpArgs, OpCode } from '../../src/protocol/opcodes.js';
import { turnArgs } from '../../src/waiting/gate.js';
import { hostInfo, hostLine } from '../lib/host.js';

const kSeconds = 1;

function op(opcode: OpCode, keys: readonly string[], token: string, extra = ''): OpArgs {
  return { opcode, keys, token, ttlArg: opcode === 'R' ? '0' : '30000', extra };
}

/** Each shape: the calls of one round (an acquisition and its release), by round number. */
const shapes: Record<string, (i: number) => string[][]> = {
  'SET NX PX, then LEAN release': (i) => [setNxArgs(`k${i % 64}`, `t${i}`, '30000'), callArgs([op('R', [`k${i % 64}`], `t${i}`)], 0, 1)],
  'LEAN, 1 op': (i) => [callArgs([op('A', [`k${i % 64}`], `t${i}`)], 0, 1), callArgs([op('R', [`k${i % 64}`], `t${i}`)], 0, 1)],
  'LEAN, 8 ops': (i) => {
    const keys = Array.from({ length: 8 }, (_, j) => `k${(i * 8 + j) % 512}`);
    return [callArgs(keys.map((key) => op('A', [key], `t${i}`)), 0, 8), callArgs(keys.map((key) => op('R', [key], `t${i}`)), 0, 8)];
  },
  'BATCH, 2-key lock': (i) => [callArgs([op('A', [`m${i % 64}`, `n${i % 64}`], `t${i}`)], 0, 1), callArgs([op('R', [`m${i % 64}`, `n${i % 64}`], `t${i}`)], 0, 1)],
  'BATCH, gated acquisition': (i) => [callArgs([op('G', [`g${i % 64}`, `pipelock:queue:g${i % 64}`], `t${i}`, turnArgs('p:1'))], 0, 1), callArgs([op('R', [`g${i % 64}`], `t${i}`)], 0, 1)],
};

let now = 1_795_712_284_341.802;
const master = new SimMaster({ now: () => now });
const conn = master.connect();
for (const script of SCRIPTS) conn.exec(scriptLoadArgs(script));

const host = hostInfo(['fengari'], 'node --import tsx bench/sim/calls.ts');
const results: Record<string, number> = {};
for (const [name, make] of Object.entries(shapes)) {
  let calls = 0;
  let round = 0;
  const start = performance.now();
  while (performance.now() - start < kSeconds * 1000) {
    for (let n = 0; n < 100; n++) {
      for (const args of make(round++)) conn.exec(args);
      calls += 2;
      now += 0.05;
    }
  }
  results[name] = Math.round(calls / ((performance.now() - start) / 1000));
}
console.log(JSON.stringify({ host, hostLine: hostLine(host), callsPerSecond: results }, null, 2));
