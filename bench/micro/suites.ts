/**
 * The hot path, piece by piece: token generation, argument building, quorum bookkeeping, validity
 * math, reply handling, and a whole acquire + release against instant in-memory masters.
 * These import pipelock's internals on purpose: when one is renamed, this file is where it shows.
 */
import type { Bench } from 'tinybench';
import { Attempt } from '../../src/engine/attempt.js';
import { Redlock } from '../../src/index.js';
import { decide, quorumSize, type Tally } from '../../src/engine/quorum.js';
import { callArgs } from '../../src/protocol/calls.js';
import { OP_ACQUIRE, OP_RELEASE } from '../../src/protocol/opcodes.js';
import { BATCH_SHA, batchArgs } from '../../src/protocol/batch-script.js';
import { setNxArgs } from '../../src/protocol/calls.js';
import { type OpArgs } from '../../src/protocol/opcodes.js';
import { createToken } from '../../src/protocol/token.js';
import { drift, validUntil } from '../../src/lifecycle/validity.js';
import { fakeClient } from './fake-masters.js';

const N = 5;
const Q = quorumSize(N);

function ops(count: number): OpArgs[] {
  return Array.from({ length: count }, (_, i) => ({ opcode: i % 2 === 0 ? OP_ACQUIRE : OP_RELEASE, keys: [`bench:${i}`], token: createToken(), ttlArg: '10000', extra: '' }));
}

export function tokenSuite(bench: Bench): void {
  bench.add('token: createToken()', () => createToken());
}

export function argsSuite(bench: Bench): void {
  const token = createToken();
  const batch64 = ops(64);
  const batch512 = ops(512);
  bench.add('args: SET NX PX (lone acquire)', () => setNxArgs('bench:42', token, '10000'));
  // What the coalescer sends for these single-key acquires and releases (LEAN_SCRIPT), and what
  // BATCH_SCRIPT's words for the same operations would cost.
  bench.add('args: EVALSHA call of 64 ops', () => callArgs(batch64, 0, batch64.length));
  bench.add('args: EVALSHA call of 512 ops', () => callArgs(batch512, 0, batch512.length));
  bench.add('args: BATCH_SCRIPT words for 64 ops', () => batchArgs(BATCH_SHA, batch64, 0, batch64.length));
}

export function quorumSuite(bench: Bench): void {
  const keys = ['bench:1'];
  const token = createToken();
  const tallies: Tally[] = [];
  for (let f = 0; f <= N; f++) tallies.push({ size: N, quorum: Q, votesFor: f, votesAgainst: N - f, votesUnreachable: 0, votesStalled: 0 });
  bench.add('quorum: decide() over 5 votes', () => {
    let d = 0;
    for (const tally of tallies) d += decide(tally);
    return d;
  });
  bench.add('quorum: Attempt + 5 settles (won at 3)', () => {
    const attempt = new Attempt(OP_ACQUIRE, keys, token, '10000', Q, performance.now(), 100, false, N);
    for (let i = 0; i < N; i++) attempt.settle(i, 1);
    return attempt.decision;
  });
  bench.add('quorum: Attempt + 5 settles (lost at 3)', () => {
    const attempt = new Attempt(OP_ACQUIRE, keys, token, '10000', Q, performance.now(), 100, false, N);
    for (let i = 0; i < N; i++) attempt.settle(i, 0);
    return attempt.decision;
  });
}

export function validitySuite(bench: Bench): void {
  let t = performance.now();
  bench.add('validity: drift + validUntil', () => {
    t += 0.001;
    return validUntil(t, 10_000, 0.01) - drift(10_000, 0.01);
  });
}

export function replySuite(bench: Bench): void {
  const token = createToken();
  const keys = ['bench:1'];
  // What a master's batch reply does: one integer per coalesced op, settled into each op's tally.
  const reply = new Array<number>(64).fill(1);
  bench.add('reply: settle a 64-op batch reply on 5 masters', () => {
    const attempts: Attempt[] = [];
    for (let j = 0; j < 64; j++) attempts.push(new Attempt(OP_ACQUIRE, keys, token, '10000', Q, 0, 100, false, N));
    for (let i = 0; i < N; i++) for (let j = 0; j < 64; j++) attempts[j]!.settle(i, reply[j]!);
    return attempts.length;
  });
}

/** Whole cycles through the public API against instant masters: the library's own CPU per cycle. */
export async function cycleSuite(bench: Bench): Promise<() => Promise<void>> {
  const redlock = new Redlock(Array.from({ length: N }, () => fakeClient()), { retryCount: 0 });
  const coalesceOff = new Redlock(Array.from({ length: N }, () => fakeClient()), { retryCount: 0, coalesce: false });
  const refusing = new Redlock(Array.from({ length: N }, () => fakeClient(true)), { retryCount: 0 });
  await redlock.ready();
  let n = 0;
  bench.add('cycle: acquire + release, 1 at a time (instant masters)', async () => {
    const lock = await redlock.acquire([`bench:${n++}`], 10_000);
    await lock.release();
  });
  const burst = async (r: Redlock): Promise<void> => {
    const cycles: Promise<unknown>[] = [];
    for (let i = 0; i < 64; i++) cycles.push(r.acquire([`bench:${n++}`], 10_000).then((lock) => lock.release()));
    await Promise.all(cycles);
  };
  // The hot key's common case: refused by every master, cleaned up, thrown as ResourceLockedError.
  bench.add('cycle: refused acquire, 1 at a time (instant masters)', async () => {
    try {
      await refusing.acquire([`bench:${n++}`], 10_000);
    } catch {
      return;
    }
    throw new Error('the refusing masters granted a lock');
  });
  bench.add('cycle: 64 concurrent acquire + release (instant masters)', () => burst(redlock));
  bench.add('cycle: 64 concurrent, coalesce: false (instant masters)', () => burst(coalesceOff));
  return async () => {
    await redlock.quit();
    await coalesceOff.quit();
    await refusing.quit();
  };
}
