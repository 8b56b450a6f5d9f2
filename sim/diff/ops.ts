/**
 * Random operations (the coalescer's OpArgs) as pipelock makes them: fresh ones of every opcode,
 * and follow-ups of earlier acquisitions (extend, release, hand over, a head waiting its turn),
 * put into script calls with pipelock's own callArgs.
 */
import { counterKeys } from '../../src/engine/fencing.js';
import { callArgs } from '../../src/protocol/calls.js';
import type { OpArgs, OpCode } from '../../src/protocol/opcodes.js';
import { turnsKey, turnArgs } from '../../src/waiting/gate.js';
import { kNoPrefix } from '../../src/engine/keys.js';
import { kFar, rw, type Held, type Pools } from './pools.js';

function op(opcode: OpCode, keys: readonly string[], token: string, ttlArg: string, extra = ''): OpArgs {
  return { opcode, keys, token, ttlArg, extra };
}

/** Remembers what `op` would take, when it is an acquisition. */
function remember(p: Pools, op: OpArgs): void {
  const keys = op.keys;
  let held: Held | undefined;
  if (op.opcode === 'A' || op.opcode === 'H') held = { kind: 'lock', keys, token: op.token };
  else if (op.opcode === 'F') held = { kind: 'lock', keys: keys.slice(0, keys.length / 2), token: op.token };
  else if (op.opcode === 'G') held = { kind: 'lock', keys: keys.slice(0, -1), token: op.token };
  else if (op.opcode === 'P') held = { kind: 'permit', keys: [keys[Number(op.extra)] ?? keys[0]!, keys[keys.length - 1]!], token: op.token };
  else if (op.opcode === 'r') held = { kind: 'reader', keys: [keys[0]!], token: op.token };
  else if (op.opcode === 'W') held = { kind: 'writer', keys: [keys[1]!], token: op.token };
  if (held === undefined) return;
  p.held.push(held);
  if (p.held.length > 6) p.held.shift();
}

/** An operation on something taken earlier in the sequence, as pipelock follows an acquisition. */
function followUp(p: Pools, held: Held): OpArgs {
  const r = p.r;
  switch (held.kind) {
    case 'lock': {
      const code = r.weighted<OpCode>([[4, 'E'], [4, 'R'], [2, 'H'], [1, 'D'], [3, 'G'], [2, 'L'], [1, 'K']]);
      // An election's leader writing or erasing its record beside its lock key.
      if (code === 'L' || code === 'K') return leaderOp(code, held.keys[0]!, held.token, r.int(4));
      if (code === 'H') return op(code, held.keys, r.pick(p.tokens), p.ttl(), held.token);
      // Another process's head waiting its turn at the gate for the lock held.
      if (code === 'G') return op(code, [...held.keys, turnsKey(kNoPrefix, held.keys[0]!, false)], r.pick(p.tokens), p.ttl(), turnArgs(r.pick(p.ids)));
      return op(code, held.keys, held.token, code === 'R' ? '0' : p.ttl());
    }
    case 'permit':
      return r.chance(0.5) ? op('T', held.keys, held.token, p.ttl()) : op('V', held.keys, held.token, '0');
    case 'reader':
      return r.chance(0.5) ? op('e', held.keys, held.token, p.ttl()) : op('u', held.keys, held.token, '0');
    case 'writer':
      return r.chance(0.5) ? op('E', held.keys, held.token, p.ttl()) : op('R', held.keys, held.token, '0');
  }
}

/** One operation: a follow-up of an earlier acquisition, or a fresh one of a random kind. */
function randomOp(p: Pools): OpArgs {
  const next = p.held.length > 0 && p.r.chance(0.4) ? followUp(p, p.r.pick(p.held)) : freshOp(p);
  remember(p, next);
  return next;
}

/** One operation of a random kind, keyed as pipelock keys it. */
function freshOp(p: Pools): OpArgs {
  const r = p.r;
  const locks = (): string[] => r.some(p.locks, r.weighted([[6, 1], [2, 2], [1, 3]])).map((key) => p.stray(key));
  const token = (): string => r.pick(p.tokens);
  const doc = r.pick(p.docs);
  const code = r.weighted<OpCode>([
    [10, 'A'], [6, 'E'], [8, 'R'], [3, 'F'], [5, 'X'], [2, 'I'], [2, 'D'], [2, 'Q'], [4, 'P'], [2, 'T'], [3, 'V'],
    [3, 'r'], [2, 'e'], [2, 'u'], [3, 'W'], [7, 'G'], [3, 'H'], [2, 'Z'], [2, 'M'], [2, 'J'], [1, 'L'], [1, 'K'], [2, 'Y'],
  ]);
  switch (code) {
    case 'A':
    case 'E':
    case 'D':
      return op(code, code === 'D' ? [p.stray(p.runKey)] : locks(), token(), p.ttl());
    case 'R':
      return op(code, locks(), token(), '0');
    case 'F': {
      const keys = r.some(p.locks, r.between(1, 2));
      return op(code, [...keys, ...counterKeys(keys)].map((key) => p.stray(key)), token(), p.ttl());
    }
    case 'X':
      return op(code, counterKeys(r.some(p.locks, r.between(1, 2))).map((key) => p.stray(key)), r.pick(p.targets), '604800000');
    case 'I':
      return op(code, [p.stray(p.attempts)], '', p.ttl());
    case 'Q':
      return op(code, [p.stray(p.runKey)], '', '0');
    case 'P':
      return op(code, [...p.slots, p.released].map((key) => p.stray(key)), token(), p.ttl(), String(r.int(p.permits)));
    case 'T':
    case 'V':
      return op(code, [p.stray(r.pick(p.slots)), p.stray(p.released)], token(), code === 'T' ? p.ttl() : '0');
    case 'r':
    case 'W':
      return op(code, rw(doc).map((key) => p.stray(key)), token(), p.ttl(), code === 'W' ? String(r.pick([20, 60, 25_000])) : '');
    case 'e':
    case 'u':
      return op(code, [p.stray(rw(doc)[0]!)], token(), code === 'e' ? p.ttl() : '0');
    case 'G': {
      const keys = locks();
      const id = r.pick(p.ids);
      const extra = r.weighted([[5, turnArgs(id)], [1, `0 0 ${id}`], [1, `0 ${kFar} ${id}`], [1, `${kFar} ${kFar} ${id}`]]);
      return op(code, [...keys, p.stray(turnsKey(kNoPrefix, p.locks.includes(keys[0]!) ? keys[0]! : 'r0', false))], token(), p.ttl(), extra);
    }
    case 'H':
      return op(code, locks(), token(), p.ttl(), token());
    case 'Z': {
      const keys = r.some(p.locks, r.between(1, 2));
      return op(code, [...keys, ...keys.map((key) => `pipelock:revoked:${key}`)].map((key) => p.stray(key)), 'reason', p.ttl());
    }
    case 'M':
      return op(code, [p.stray(r.pick(p.locks)), p.stray(`${r.pick(p.locks)}:leader`)], '', '0');
    case 'J':
      return op(code, r.some(p.all, r.between(1, 3)).map((key) => p.stray(key)), '', '0');
    case 'Y':
      return op(code, [p.stray(`${r.pick(p.locks)}:history`)], '', '0');
    case 'L':
    case 'K':
      return leaderOp(code, locks()[0]!, token(), r.int(4));
  }
}

/** An election's record written (L) or erased (K, with the history every other time) beside lock key `lock`. */
function leaderOp(code: 'L' | 'K', lock: string, token: string, term: number): OpArgs {
  const entry = JSON.stringify({ n: term, v: 'v', s: 0 });
  const keys = [lock, `${lock}:leader`, `${lock}:history`];
  if (code === 'L') return op(code, keys, token, JSON.stringify({ t: token, n: term, v: 'v', s: 0 }), entry);
  return op(code, term % 2 === 0 ? keys : keys.slice(0, 2), token, '0', entry);
}

/** A script call as the coalescer cuts one: LEAN_SCRIPT when its operations fit, BATCH_SCRIPT otherwise. */
export function scriptCall(p: Pools): string[] {
  const r = p.r;
  if (r.chance(0.35)) {
    const ttl = p.ttl();
    const ops = Array.from({ length: r.between(1, 4) }, () => {
      const code = r.pick<OpCode>(['A', 'E', 'R']);
      const held = p.held.find((entry) => entry.kind === 'lock' && entry.keys.length === 1);
      const next = code !== 'A' && held !== undefined && r.chance(0.5)
        ? op(code, held.keys, held.token, code === 'R' ? '0' : ttl)
        : op(code, [p.stray(r.pick(p.locks))], r.pick(p.tokens), code === 'R' ? '0' : ttl);
      remember(p, next);
      return next;
    });
    return callArgs(ops, 0, ops.length);
  }
  const ops: OpArgs[] = [];
  const queues = new Set<string>();
  for (let i = r.between(1, 3); i > 0; i--) {
    const next = randomOp(p);
    // Two turns at one queue in one call tie on the master's clock, which Redis orders by time
    // (µs apart) and the simulation by member: real nondeterminism, not a model difference.
    if (next.opcode === 'G' && queues.has(next.keys[next.keys.length - 1]!)) continue;
    if (next.opcode === 'G') queues.add(next.keys[next.keys.length - 1]!);
    ops.push(next);
  }
  return callArgs(ops, 0, ops.length);
}
