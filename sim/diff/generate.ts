/**
 * Random sequences of what pipelock sends a master, built with pipelock's own argument builders
 * (callArgs picks LEAN_SCRIPT or BATCH_SCRIPT as the coalescer does, setNxArgs, scriptLoadArgs,
 * counterKeys, queueKey, turnArgs, permitKey), over small pools of keys and tokens so that
 * operations collide; with other clients' interference (overwrites, deletes, keys of the wrong
 * type, garbage in counters), the watch connections' reads, script cache flushes and FLUSHALL.
 */
import { createHash } from 'node:crypto';
import { counterKeys, FENCED_WRITE_SCRIPT } from '../../src/fencing.js';
import { permitKey } from '../../src/kinds/semaphore.js';
import { callArgs, SCRIPTS, scriptLoadArgs } from '../../src/script-calls.js';
import { setNxArgs, type OpArgs, type OpCode } from '../../src/scripts.js';
import { queueKey, turnArgs } from '../../src/waiting/turns.js';
import { Random } from './random.js';
import type { Conn, Step } from './steps.js';

export interface SequenceOptions {
  /** 'main': long TTLs, nothing expires; 'expiry': TTLs of tens of ms and sleeps, so keys expire between steps. */
  readonly mode: 'main' | 'expiry';
  readonly steps: number;
  /** About now on the server's clock, µs: fencing targets are chosen far from the counters made from it. */
  readonly baseUs: number;
}

const FENCED_WRITE_SHA = createHash('sha1').update(FENCED_WRITE_SCRIPT).digest('hex');
const kBase64url = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.split('');
const kHex = '0123456789abcdef'.split('');
/** What other clients may leave in a key pipelock reads as a number. */
const kGarbage = ['abc', 'inf', '-inf', 'nan', '1.5', '2.7', '-2.5', ' 7', '0x10', '1e3', '007', '-3', '9223372036854775807', '', '12'];
const kFar = 1e12;

/** The keys and tokens of one sequence. */
class Pools {
  readonly tokens: string[];
  readonly ids: string[];
  readonly locks = ['r0', 'r1', 'r2'];
  readonly docs = ['d0', 'd1'];
  readonly stores = ['store:0', 'store:1'];
  readonly permits: number;
  readonly slots: string[];
  readonly released = 'sem:permits-released';
  readonly runKey: string;
  readonly attempts: string;
  readonly targets: string[];
  readonly all: string[];
  /** The keys pipelock reads as numbers. */
  readonly counters: string[];
  readonly held: Held[] = [];

  constructor(readonly r: Random, readonly options: SequenceOptions) {
    this.tokens = Array.from({ length: 3 }, () => Array.from({ length: 27 }, () => r.pick(kBase64url)).join(''));
    const process = Array.from({ length: 16 }, () => r.pick(kHex)).join('');
    this.ids = [1, 2, 3].map((n) => `${process}:${n.toString(36)}`);
    this.permits = r.between(2, 3);
    this.slots = Array.from({ length: this.permits }, (_, i) => permitKey('sem', i));
    const windowEnd = Math.floor(options.baseUs / 1000 / 60_000) * 60_000;
    this.runKey = `job:run:${windowEnd}`;
    this.attempts = `job:attempts:${windowEnd}`;
    this.targets = ['1', '2', '5', String(options.baseUs - kFar), String(options.baseUs + kFar)];
    this.counters = [...counterKeys(this.locks), this.released, this.attempts];
    this.all = [
      ...this.locks, ...counterKeys(this.locks), ...this.locks.map((lock) => queueKey('', lock, false)),
      ...this.docs.flatMap(rw), ...this.slots, this.released, this.runKey, this.attempts, ...this.stores,
    ];
  }

  ttl(): string {
    return String(this.options.mode === 'main' ? this.r.between(20_000, 60_000) : this.r.pick([15, 25, 40, 60, 90, 150, 30_000]));
  }

  /** Mostly `key`; now and then any key of the pool, which may hold another type. */
  stray(key: string): string {
    return this.r.chance(0.06) ? this.r.pick(this.all) : key;
  }
}

function rw(doc: string): string[] {
  return [`${doc}:readers`, `${doc}:writer`, `${doc}:writer-waiting`];
}

function op(opcode: OpCode, keys: readonly string[], token: string, ttlArg: string, extra = ''): OpArgs {
  return { opcode, keys, token, ttlArg, extra };
}

/** What an acquisition took, for the operations that follow it in pipelock (extend, release, hand over…). */
type Held =
  | { readonly kind: 'lock'; readonly keys: readonly string[]; readonly token: string }
  | { readonly kind: 'permit' | 'reader' | 'writer'; readonly keys: readonly string[]; readonly token: string };

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
      const code = r.weighted<OpCode>([[4, 'E'], [4, 'R'], [2, 'H'], [1, 'D'], [3, 'G']]);
      if (code === 'H') return op(code, held.keys, r.pick(p.tokens), p.ttl(), held.token);
      // Another process's head waiting its turn at the gate for the lock held.
      if (code === 'G') return op(code, [...held.keys, queueKey('', held.keys[0]!, false)], r.pick(p.tokens), p.ttl(), turnArgs(r.pick(p.ids)));
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
    [3, 'r'], [2, 'e'], [2, 'u'], [3, 'W'], [7, 'G'], [3, 'H'],
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
      return op(code, [...keys, p.stray(queueKey('', p.locks.includes(keys[0]!) ? keys[0]! : 'r0', false))], token(), p.ttl(), extra);
    }
    case 'H':
      return op(code, locks(), token(), p.ttl(), token());
  }
}

/** A script call as the coalescer cuts one: LEAN_SCRIPT when its operations fit, BATCH_SCRIPT otherwise. */
function scriptCall(p: Pools): string[] {
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

function cmd(conn: Conn, args: readonly string[], ttlReply = false): Step {
  return { kind: 'cmd', conn, args, ttlReply };
}

/** One or two steps of a random kind. */
function randomSteps(p: Pools): Step[] {
  const r = p.r;
  const watch = r.pick<Conn>(['w0', 'w1']);
  const key = r.chance(0.7) ? r.pick([...p.locks, ...p.slots, p.released, rw(r.pick(p.docs))[0]!, queueKey('', r.pick(p.locks), false)]) : r.pick(p.all);
  const kind = r.weighted<string>([
    [40, 'call'], [10, 'setnx'], [10, 'read'], [4, 'mget'], [3, 'forget'], [4, 'fenced'], [2, 'fenced-eval'],
    [3, 'set'], [3, 'garbage'], [3, 'del'], [2, 'hash'], [2, 'plant'], [2, 'load'], [1, 'script-flush'], [1, 'exists'],
    [3, 'watch-call'],
    [1, 'tracking'], [1, 'unknown'], [0.5, 'flush'], [p.options.mode === 'expiry' ? 15 : 0, 'sleep'],
  ]);
  switch (kind) {
    case 'call':
      return [cmd('main', scriptCall(p))];
    case 'setnx':
      return [cmd('main', setNxArgs(p.stray(r.pick(p.locks)), r.pick(p.tokens), p.ttl()))];
    case 'read':
      // The watch reads a key as GET then PTTL (src/waiting/watch.ts): both arm tracking.
      return [cmd(watch, ['GET', key]), cmd(watch, ['PTTL', key], true)];
    case 'mget':
      return [cmd(watch, ['MGET', ...r.some(p.all, r.between(1, 3))])];
    case 'forget':
      return [cmd(watch, ['ZREM', p.stray(queueKey('', r.pick(p.locks), false)), r.pick(p.ids)])];
    case 'fenced':
    case 'fenced-eval': {
      const tail = ['1', p.stray(r.pick(p.stores)), String(r.between(1, 6)), `v${r.int(10)}`];
      return [cmd('foreign', kind === 'fenced' ? ['EVALSHA', FENCED_WRITE_SHA, ...tail] : ['EVAL', FENCED_WRITE_SCRIPT, ...tail])];
    }
    case 'set':
      return [cmd('foreign', ['SET', key, r.chance(0.7) ? r.pick(p.tokens) : r.pick(kGarbage)])];
    case 'garbage':
      return [cmd('foreign', ['SET', r.chance(0.6) ? r.pick(counterKeys(p.locks)) : r.pick(p.counters), r.pick(kGarbage)])];
    case 'watch-call':
      // Not pipelock's shape: a script run by a tracking connection, whose reads Redis tracks
      // for it and whose own writes it is told of after the reply.
      return [cmd(watch, r.chance(0.7) ? scriptCall(p) : setNxArgs(r.pick(p.locks), r.pick(p.tokens), p.ttl()))];
    case 'del':
      return [cmd('foreign', ['DEL', ...r.some(p.all, r.between(1, 2))])];
    case 'hash':
      return [cmd('foreign', r.chance(0.5) ? ['HSET', key, 'f', 'v'] : ['HSET', r.pick(p.stores), 'fence', r.pick(kGarbage)])];
    case 'plant':
      return [{ kind: 'plant', key, value: r.chance(0.5) ? { type: 'list', value: ['x', 'y'] } : { type: 'set', value: ['m'] } }];
    case 'load':
      return [cmd('main', scriptLoadArgs(r.pick(SCRIPTS)))];
    case 'script-flush':
      return [cmd('foreign', ['SCRIPT', 'FLUSH'])];
    case 'exists':
      return [cmd('foreign', ['SCRIPT', 'EXISTS', ...SCRIPTS.map((script) => script.sha), FENCED_WRITE_SHA])];
    case 'tracking':
      return [cmd('w1', ['CLIENT', 'TRACKING', r.chance(0.5) ? 'off' : 'on'])];
    case 'unknown':
      return [cmd(r.pick<Conn>(['main', 'w0']), ['NOSUCHCMD', key])];
    case 'flush':
      return [{ kind: 'flush' }];
    default:
      return [{ kind: 'sleep', ms: r.between(5, 60) }];
  }
}

/** The sequence of seed `seed`: pipelock's script loads first (most of the time, as at connect), then random steps. */
export function generate(seed: number, options: SequenceOptions): Step[] {
  const p = new Pools(new Random(seed), options);
  const steps: Step[] = [];
  if (p.r.chance(0.9)) for (const script of SCRIPTS) steps.push(cmd('main', scriptLoadArgs(script)));
  while (steps.length < options.steps) steps.push(...randomSteps(p));
  return steps;
}
