/**
 * Random sequences of what pipelock sends a master, built with pipelock's own argument builders
 * (callArgs picks LEAN_SCRIPT or BATCH_SCRIPT as the coalescer does, setNxArgs, scriptLoadArgs,
 * counterKeys, turnsKey, turnArgs, permitKey), over small pools of keys and tokens so that
 * operations collide; with other clients' interference (overwrites, deletes, keys of the wrong
 * type, garbage in counters), the watch connections' reads, script cache flushes and FLUSHALL.
 */
import { createHash } from 'node:crypto';
import { counterKeys } from '../../src/engine/fencing.js';
import { FENCED_WRITE_SCRIPT } from '../../src/recipes/fenced-write.js';
import { SCRIPTS, scriptLoadArgs } from '../../src/protocol/calls.js';
import { setNxArgs } from '../../src/protocol/calls.js';
import { turnsKey } from '../../src/waiting/gate.js';
import { kNoPrefix } from '../../src/engine/keys.js';
import { scriptCall } from './ops.js';
import { kGarbage, Pools, rw, type SequenceOptions } from './pools.js';
import { Random } from './random.js';
import type { Conn, Step } from './steps.js';

export type { SequenceOptions };

const FENCED_WRITE_SHA = createHash('sha1').update(FENCED_WRITE_SCRIPT).digest('hex');

function cmd(conn: Conn, args: readonly string[], ttlReply = false): Step {
  return { kind: 'cmd', conn, args, ttlReply };
}

/** One or two steps of a random kind. */
function randomSteps(p: Pools): Step[] {
  const r = p.r;
  const watch = r.pick<Conn>(['w0', 'w1']);
  const key = r.chance(0.7) ? r.pick([...p.locks, ...p.slots, p.released, rw(r.pick(p.docs))[0]!, turnsKey(kNoPrefix, r.pick(p.locks), false)]) : r.pick(p.all);
  const kind = r.weighted<string>([
    [40, 'call'], [10, 'setnx'], [10, 'read'], [4, 'mget'], [3, 'forget'], [4, 'fenced'], [2, 'fenced-eval'],
    [3, 'set'], [3, 'garbage'], [3, 'del'], [2, 'hash'], [2, 'plant'], [2, 'load'], [1, 'script-flush'], [1, 'exists'],
    [3, 'watch-call'],
    [1, 'tracking'], [1, 'unknown'], [0.5, 'flush'], [p.options.mode === 'expiry' ? 15 : 0, 'sleep'],
  ]);
  switch (kind) {
    case 'call':
      return replayed(p, 'main', scriptCall(p));
    case 'setnx':
      return [cmd('main', setNxArgs(p.stray(r.pick(p.locks)), r.pick(p.tokens), p.ttl()))];
    case 'read':
      // The watch reads a key as GET then PTTL (src/waiting/watch.ts): both arm tracking.
      return [cmd(watch, ['GET', key]), cmd(watch, ['PTTL', key], true)];
    case 'mget':
      return [cmd(watch, ['MGET', ...r.some(p.all, r.between(1, 3))])];
    case 'forget':
      return [cmd(watch, ['ZREM', p.stray(turnsKey(kNoPrefix, r.pick(p.locks), false)), r.pick(p.ids)])];
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
      return r.chance(0.7) ? replayed(p, watch, scriptCall(p)) : [cmd(watch, setNxArgs(r.pick(p.locks), r.pick(p.tokens), p.ttl()))];
    case 'del':
      return [cmd('foreign', ['DEL', ...r.some(p.all, r.between(1, 2))])];
    case 'hash':
      return [cmd('foreign', r.chance(0.5) ? ['HSET', key, 'f', 'v'] : ['HSET', r.pick(p.stores), 'fence', r.pick(kGarbage)])];
    case 'plant':
      return [{ kind: 'plant', key, value: r.chance(0.5) ? { type: 'list', value: ['x', 'y'] } : { type: 'set', value: ['m'] } }];
    case 'load': {
      const script = r.pick(SCRIPTS);
      p.loaded.add(script.sha);
      return [cmd('main', scriptLoadArgs(script))];
    }
    case 'script-flush':
      p.loaded.clear();
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

/**
 * A script call, and when its script is not loaded, what pipelock then does (src/script-replay.ts):
 * the call meets NOSCRIPT, every script is loaded, and the call goes again.
 */
function replayed(p: Pools, conn: Conn, args: string[]): Step[] {
  if (p.loaded.has(args[1]!)) return [cmd(conn, args)];
  for (const script of SCRIPTS) p.loaded.add(script.sha);
  return [cmd(conn, args), ...SCRIPTS.map((script) => cmd('main', scriptLoadArgs(script))), cmd(conn, args)];
}

/** The sequence of seed `seed`: pipelock's script loads first (most of the time, as at connect), then random steps. */
export function generate(seed: number, options: SequenceOptions): Step[] {
  const p = new Pools(new Random(seed), options);
  const steps: Step[] = [];
  if (p.r.chance(0.9)) {
    for (const script of SCRIPTS) steps.push(cmd('main', scriptLoadArgs(script)));
    for (const script of SCRIPTS) p.loaded.add(script.sha);
  }
  while (steps.length < options.steps) steps.push(...randomSteps(p));
  return steps;
}
