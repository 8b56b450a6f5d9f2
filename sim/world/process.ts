import { AsyncLocalStorage } from 'node:async_hooks';
import type { Scheduler, Event } from './scheduler.js';

/**
 * A simulated client process: its own monotonic clock (a rate within or outside the drift bound),
 * its own wall clock (which may jump), and pauses during which none of its callbacks run while the
 * world moves on (a GC pause, a blocked event loop, a stopped VM).
 */
export class Proc {
  /** performance.now() = perfOffset + rate × world. */
  perfOffset: number;
  /** Date.now() = epoch + dateOffset + rate × world; a clock jump moves dateOffset only. */
  dateOffset = 0;
  /** World instant until which the process is paused. */
  pausedUntil = 0;
  /** Every pause, [from, to) in world time. */
  readonly pauses: [number, number][] = [];
  /** Its timers not yet fired or cleared (what a quit Redlock must not leave behind). */
  readonly timers = new Set<SimTimer>();
  /** Errors thrown by its timer callbacks (Node would crash on them). */
  readonly thrown: unknown[] = [];

  constructor(readonly world: Scheduler, readonly id: number, readonly rate: number, perfOffset: number) {
    this.perfOffset = perfOffset;
  }

  /** Stops its callbacks for `ms` from now (a stalled event loop, a GC pause, a stopped VM). */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.world.now + ms);
    this.pauses.push([this.world.now, this.world.now + ms]);
  }

  /** Whether it was paused at any time in (from, to]. */
  pausedWithin(from: number, to: number): boolean {
    const within = ([a, b]: [number, number]): boolean => a < to && b > from;
    return this.pauses.some(within) || this.world.stalls.some(within);
  }

  perfNow(): number {
    return this.perfOffset + this.rate * this.world.now;
  }

  /** The world instant at which its monotonic clock reads `local`. */
  worldAt(local: number): number {
    return (local - this.perfOffset) / this.rate;
  }

  /** Runs `fn` in this process at world instant `at`, or when its pause ends. */
  at(at: number, fn: () => void): Event {
    return this.world.at(at, () => {
      if (this.world.now < this.pausedUntil) {
        this.at(this.pausedUntil, fn);
        return;
      }
      this.run(fn);
    });
  }

  /** Runs `fn` now as this process's code (its clock, its timers), recording what it throws. */
  run(fn: () => void): void {
    context.run(this, () => {
      try {
        fn();
      } catch (error) {
        this.thrown.push(error);
      }
    });
  }
}

/** The process whose code is running: promise continuations keep it (async_hooks). */
const context = new AsyncLocalStorage<Proc>();

export function currentProc(): Proc | undefined {
  return context.getStore();
}

/** A timer handle with Node's Timeout surface (unref, ref, hasRef, refresh, a number). */
export class SimTimer {
  static #ids = 1;
  readonly id = SimTimer.#ids++;
  event: Event | undefined;
  #refd = true;

  constructor(
    readonly proc: Proc,
    readonly fn: () => void,
    /** Local ms (scaled by the process's rate). */
    readonly delay: number,
    readonly repeat: boolean,
  ) {}

  arm(): this {
    this.proc.timers.add(this);
    this.event = this.proc.at(this.proc.world.now + Math.max(0, this.delay) / this.proc.rate, this.#fire);
    return this;
  }

  cancel(): void {
    if (this.event !== undefined) this.proc.world.cancel(this.event);
    this.event = undefined;
    this.proc.timers.delete(this);
  }

  readonly #fire = (): void => {
    this.event = undefined;
    if (this.repeat) this.arm();
    else this.proc.timers.delete(this);
    this.fn();
  };

  unref(): this {
    this.#refd = false;
    return this;
  }

  ref(): this {
    this.#refd = true;
    return this;
  }

  hasRef(): boolean {
    return this.#refd;
  }

  refresh(): this {
    this.cancel();
    return this.arm();
  }

  [Symbol.toPrimitive](): number {
    return this.id;
  }
}
