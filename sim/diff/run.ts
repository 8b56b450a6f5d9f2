/**
 * Runs one sequence on a real redis-server and on a fresh simulated master, step by step: the real
 * command first (its TIME sets the simulated clock), then the simulated one; then replies, the
 * watches' invalidations and the whole keyspace are compared.
 *
 * Real time cannot be stopped on the real server, so a step is kept away from the moments where
 * the outcome turns on the clock (a key's expiry, a reader's, a queue's bypass and grace): it
 * waits until the nearest such moment is past. A step that ran within a couple of ms of one all
 * the same (the machine was slow) could go either way on either side: the sequence is given up
 * as void rather than judged.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { KeyDump } from '../master/index.js';
import { clockSpread, difference, keyspaceDifference, type Normal } from './compare.js';
import type { RealSide } from './real.js';
import { SimSide } from './sim.js';
import { describe, kWatches, type Step } from './steps.js';
import { kBypassMs, kGraceMs } from '../../src/waiting/gate.js';

export type Outcome =
  | { readonly status: 'ok' }
  | { readonly status: 'void'; readonly at: number; readonly reason: string }
  | { readonly status: 'diverged'; readonly at: number; readonly detail: string };

/** No step starts this close before (ms) a clock-decided moment, nor this soon after it. */
const kBefore = 12;
const kAfter = 3.5;
/** A step or a keyspace read this close to such a moment is judged neither way. */
const kAmbiguous = 2.5;

/** When keys expire (ms, the master's clock): what a keyspace read depends on. */
function expiries(keys: readonly KeyDump[]): number[] {
  return keys.flatMap((entry) => (entry.expireAt === null ? [] : [entry.expireAt]));
}

/** The moments (ms, the master's clock) at which the outcome of a step on `keys` turns. */
export function deadlines(keys: readonly KeyDump[]): number[] {
  const out = expiries(keys);
  for (const entry of keys) {
    if (entry.type !== 'zset') continue;
    for (const [, score] of entry.value) {
      // A reader's expiry (ms); a gate queue's marked first (minus its µs): its bypass and grace.
      if (score >= 1e11 && score < 1e14) out.push(score);
      if (score <= -1e14) out.push(-score / 1000 + kBypassMs, -score / 1000 + kGraceMs);
    }
  }
  return out;
}

async function awayFrom(real: RealSide, moments: readonly number[]): Promise<void> {
  for (;;) {
    const now = real.estimateMs();
    let until = -Infinity;
    for (const moment of moments) if (moment > now - kAfter && moment < now + kBefore) until = Math.max(until, moment);
    if (until === -Infinity) return;
    await delay(until + kAfter + 0.5 - now);
  }
}

/** A moment within kAmbiguous ms of [ms, ms + span]: when the real command read its clock. */
function near(moments: readonly number[], ms: number, span: number): number | undefined {
  return moments.find((moment) => moment > ms - kAmbiguous && moment < ms + span + kAmbiguous);
}

export async function runSequence(real: RealSide, steps: readonly Step[]): Promise<Outcome> {
  await real.reset();
  const sim = new SimSide();
  let previous: readonly KeyDump[] = [];
  /** The longest EXEC so far, µs (see Tolerance). */
  let spanUs = 0;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    if (step.kind === 'sleep') {
      await delay(step.ms);
      continue;
    }
    const moments = deadlines(previous);
    await awayFrom(real, moments);
    const result = await real.run(step);
    const atUs = result.timeUs ?? real.estimateMs() * 1000;
    spanUs = Math.max(spanUs, result.spanUs);
    clockSpread.spanUs = Math.max(clockSpread.spanUs, spanUs);
    const close = near(moments, atUs / 1000, result.spanUs / 1000);
    if (close !== undefined) return { status: 'void', at: i, reason: `ran ${(atUs / 1000 - close).toFixed(2)} ms from a key's moment` };
    sim.setClock(atUs);
    const reply = sim.run(step);
    await real.drain();
    const dump = await real.dump();
    sim.setClock(dump.timeUs);
    const keys = sim.dump();
    const after = near([...expiries(previous), ...expiries(keys)], dump.timeUs / 1000, 0);
    if (after !== undefined) return { status: 'void', at: i, reason: `keyspace read ${(dump.timeUs / 1000 - after).toFixed(2)} ms from a key's moment` };
    const tolerance = { spanUs };
    const found = difference(reply, result.reply, 'reply', { spanUs, ttl: step.kind === 'cmd' && step.ttlReply === true })
      ?? pushDifference(sim, real)
      ?? keyspaceDifference(keys, dump.keys, tolerance);
    if (found !== undefined) return { status: 'diverged', at: i, detail: report(found, reply, result.reply, sim, real, keys, dump.keys) };
    for (const name of kWatches) {
      sim.pushes[name].length = 0;
      real.pushes[name].length = 0;
    }
    previous = keys;
  }
  return { status: 'ok' };
}

function pushDifference(sim: SimSide, real: RealSide): string | undefined {
  for (const name of kWatches) {
    const found = difference(sim.pushes[name], real.pushes[name], `invalidations on ${name}`, { spanUs: 0 });
    if (found !== undefined) return found;
  }
  return undefined;
}

function report(found: string, simReply: Normal, realReply: Normal, sim: SimSide, real: RealSide, simKeys: readonly KeyDump[], realKeys: readonly KeyDump[]): string {
  return [
    found,
    `  reply: simulated ${JSON.stringify(simReply)}`,
    `         real      ${JSON.stringify(realReply)}`,
    `  invalidations: simulated ${JSON.stringify(sim.pushes)}, real ${JSON.stringify(real.pushes)}`,
    `  keyspace simulated: ${JSON.stringify(simKeys)}`,
    `  keyspace real:      ${JSON.stringify(realKeys)}`,
  ].join('\n');
}

/** The steps up to `at`, numbered, for a failure message. */
export function transcript(steps: readonly Step[], at: number): string {
  return steps.slice(0, at + 1).map((step, i) => `  ${String(i).padStart(3)} ${describe(step)}`).join('\n');
}
