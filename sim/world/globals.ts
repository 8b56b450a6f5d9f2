import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import type { Random } from '../diff/random.js';
import { currentProc, Proc, SimTimer } from './process.js';
import type { Scheduler } from './scheduler.js';

export const kEpoch = 1_780_000_000_000;

interface Saved {
  readonly setTimeout: typeof globalThis.setTimeout;
  readonly clearTimeout: typeof globalThis.clearTimeout;
  readonly setInterval: typeof globalThis.setInterval;
  readonly clearInterval: typeof globalThis.clearInterval;
  readonly setImmediate: typeof globalThis.setImmediate;
  readonly clearImmediate: typeof globalThis.clearImmediate;
  readonly perfNow: () => number;
  readonly dateNow: () => number;
  readonly random: () => number;
  readonly randomFillSync: typeof crypto.randomFillSync;
  readonly randomBytes: typeof crypto.randomBytes;
}

let saved: Saved | undefined;

/** How many times a random fill ran (pipelock's token pool refills through one). */
export let fills = 0;

/** What code outside any simulated process (the driver, a checker) reads as its clock: the world's. */
let outside: Proc | undefined;

/** The real setImmediate, for the driver to let microtasks settle between events. */
export function realImmediate(): Promise<void> {
  const set = saved?.setImmediate ?? setImmediate;
  return new Promise((resolve) => set(resolve));
}

function cancel(handle: unknown): void {
  if (handle instanceof SimTimer) handle.cancel();
}

function proc(): Proc {
  return currentProc() ?? outside!;
}

/**
 * Replaces the clocks, timers and randomness every simulated process reads (performance.now,
 * Date.now, set/clearTimeout/Interval/Immediate, Math.random, crypto's random fills) with the
 * world's: each call answers for the process whose code is running. One world at a time; uninstall
 * gives the real ones back.
 */
/**
 * Node's rule for a timer's delay (lib/internal/timers.js): below 1 ms, above 2^31 − 1 or not a
 * number, it is 1 ms. A 0 ms setTimeout firing at the same virtual instant let a loop re-arm forever
 * without time moving, which no real process can do.
 */
export function timerDelay(ms: unknown): number {
  const after = Number(ms);
  return after >= 1 && after <= 2 ** 31 - 1 ? after : 1;
}

export function install(world: Scheduler, random: Random): void {
  if (saved !== undefined) throw new Error('a simulated world is already installed');
  saved = {
    setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout,
    setInterval: globalThis.setInterval, clearInterval: globalThis.clearInterval,
    setImmediate: globalThis.setImmediate, clearImmediate: globalThis.clearImmediate,
    perfNow: performance.now.bind(performance), dateNow: Date.now, random: Math.random,
    randomFillSync: crypto.randomFillSync, randomBytes: crypto.randomBytes,
  };
  outside = new Proc(world, -1, 1, 0);
  const g = globalThis as unknown as Record<string, unknown>;
  g.setTimeout = (fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => new SimTimer(proc(), () => { fn(...args); }, timerDelay(ms), false).arm();
  g.setInterval = (fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => new SimTimer(proc(), () => { fn(...args); }, timerDelay(ms), true).arm();
  g.setImmediate = (fn: (...args: unknown[]) => void, ...args: unknown[]) => new SimTimer(proc(), () => { fn(...args); }, 0, false).arm();
  g.clearTimeout = cancel;
  g.clearInterval = cancel;
  g.clearImmediate = cancel;
  Object.defineProperty(performance, 'now', { value: () => proc().perfNow(), configurable: true, writable: true });
  Date.now = () => {
    const p = proc();
    return Math.floor(kEpoch + p.dateOffset + p.rate * world.now);
  };
  Math.random = () => random.next() / 2 ** 32;
  const fill = <T extends NodeJS.ArrayBufferView>(buffer: T): T => {
    fills++;
    const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    for (let i = 0; i < bytes.length; i++) bytes[i] = random.int(256);
    return buffer;
  };
  (crypto as { randomFillSync: unknown }).randomFillSync = fill;
  (crypto as { randomBytes: unknown }).randomBytes = (n: number) => fill(Buffer.alloc(n));
  syncBuiltinESMExports();
}

export function uninstall(): void {
  const s = saved;
  if (s === undefined) return;
  const g = globalThis as unknown as Record<string, unknown>;
  g.setTimeout = s.setTimeout;
  g.clearTimeout = s.clearTimeout;
  g.setInterval = s.setInterval;
  g.clearInterval = s.clearInterval;
  g.setImmediate = s.setImmediate;
  g.clearImmediate = s.clearImmediate;
  Object.defineProperty(performance, 'now', { value: s.perfNow, configurable: true, writable: true });
  Date.now = s.dateNow;
  Math.random = s.random;
  (crypto as { randomFillSync: unknown }).randomFillSync = s.randomFillSync;
  (crypto as { randomBytes: unknown }).randomBytes = s.randomBytes;
  syncBuiltinESMExports();
  saved = undefined;
  outside = undefined;
}
