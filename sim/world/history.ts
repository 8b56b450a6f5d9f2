import { createHash, type Hash } from 'node:crypto';
import type { Scheduler } from './scheduler.js';

/**
 * What a holder was told and so may act on: it held `resource` from `from` to `to` (world ms),
 * `to` being when its own clock reaches the lock's validUntil as last read, cut at its release call.
 */
export interface Claim {
  readonly holder: string;
  readonly proc: number;
  readonly resource: string;
  /** 'x' a mutex (exclusive); 'w' a write lock, 'r' a read lock; 'p' one of `permits` permits. */
  readonly kind: 'x' | 'r' | 'w' | 'p';
  readonly permits: number;
  readonly fence: number | undefined;
  readonly from: number;
  to: number;
  /**
   * Acted on right after its process was paused, judging by a signal that no timer of the paused
   * process could abort meanwhile: an overlap is the lease's known limit (Kleppmann's pause), not a bug.
   */
  readonly stalled?: boolean;
  /** A reentrant lock's owner (its outermost holder): holders of one owner share the lock. */
  readonly owner?: string;
}

/** An operation a workload started: it must settle (liveness), and its outcome is traced. */
export interface Op {
  readonly name: string;
  readonly proc: number;
  readonly started: number;
  settled: number | undefined;
}

function brief(what: unknown): string {
  if (what instanceof Error) return `ERR ${what.message.slice(0, 60)}`;
  if (!Array.isArray(what)) return typeof what === 'string' ? JSON.stringify(what) : String(what);
  const words = what.map((w) => (typeof w === 'string' && w.length > 16 ? `${w.slice(0, 8)}…` : Array.isArray(w) ? brief(w) : String(w)));
  return words.length > 8 ? `${words.slice(0, 8).join(' ')} …(${words.length})` : words.join(' ');
}

/**
 * The history of one run: every event as a line (world time, process, what), hashed as it grows so
 * that a seed's run can be compared with a replay; the holders' claims and the operations for the
 * checker (check.ts); and what broke the protocol's assumptions on purpose.
 */
export class History {
  readonly lines: string[] = [];
  readonly claims: Claim[] = [];
  readonly ops: Op[] = [];
  /** Faults outside Redlock's assumptions in this run (a master's clock jumping, a restart without delay). */
  readonly unsafeFaults: string[] = [];
  readonly #hash: Hash = createHash('sha256');
  /** Text not yet hashed: one update per ~64 KB rather than two per event (the digest is of the same bytes). */
  #unhashed = '';

  constructor(readonly world: Scheduler, readonly verbose: boolean) {}

  log(proc: number | string, text: string): void {
    const line = `${this.world.now.toFixed(3).padStart(10)} ${typeof proc === 'number' ? `p${proc}` : proc} ${text}`;
    this.#feed(`${line}\n`);
    this.lines.push(line);
  }

  /** A message on the network: always hashed; kept as a line only when verbose (a replay). */
  net(proc: number, host: number, dir: string, what: unknown): void {
    const text = brief(what);
    this.#feed(`${this.world.now} ${proc} ${host} ${dir} ${text}\n`);
    if (this.verbose) this.lines.push(`${this.world.now.toFixed(3).padStart(10)} p${proc} ${dir === '>' ? '→' : dir === '<' ? '←' : '⇠'} m${host} ${text}`);
  }

  op(proc: number, name: string): Op {
    const op: Op = { name, proc, started: this.world.now, settled: undefined };
    this.ops.push(op);
    this.log(proc, `start ${name}`);
    return op;
  }

  settle(op: Op, outcome: string): void {
    op.settled = this.world.now;
    this.log(op.proc, `end ${op.name}: ${outcome}`);
  }

  #feed(text: string): void {
    this.#unhashed += text;
    if (this.#unhashed.length >= 65536) {
      this.#hash.update(this.#unhashed);
      this.#unhashed = '';
    }
  }

  digest(): string {
    this.#hash.update(this.#unhashed);
    this.#unhashed = '';
    return this.#hash.copy().digest('hex').slice(0, 16);
  }
}
