import { SimMaster } from '../master/index.js';
import type { Scheduler } from './scheduler.js';

/**
 * One simulated master and its faults: its own clock (a rate, and jumps, which expire keys early
 * when forward), pauses (commands queue, none runs), and restarts that lose every key and stay
 * down for a while. Commands reach it through the network (net.ts), which asks `runAt` when one
 * that arrives at an instant actually runs.
 */
export class Host {
  readonly master: SimMaster;
  /** Its clock = offset + rate × world. */
  offset = 0;
  pausedUntil = 0;
  downUntil = 0;
  /** Instants at which it lost its keys (restarts), for the checker. */
  readonly restarts: number[] = [];
  #lastRun = 0;

  constructor(readonly world: Scheduler, readonly index: number, readonly rate: number, flavor: 'redis-7.0' | 'valkey-9') {
    this.master = new SimMaster({ now: () => this.offset + this.rate * this.world.now, flavor });
  }

  get name(): string {
    return `m${this.index}`;
  }

  isDown(): boolean {
    return this.world.now < this.downUntil;
  }

  /** When a command arriving now runs: after a pause, and never before one that arrived earlier. */
  runAt(arrival: number): number {
    this.#lastRun = Math.max(arrival, this.pausedUntil, this.#lastRun);
    return this.#lastRun;
  }

  /** Crashes now, empty (no persistence), and accepts connections again after `downMs`. */
  restart(downMs: number): void {
    this.restarts.push(this.world.now);
    this.downUntil = this.world.now + downMs;
    this.master.restart();
  }
}
