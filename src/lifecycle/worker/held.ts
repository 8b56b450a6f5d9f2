import { EventLoopBlockedError, ExtensionLimitError, LockLostError, LockRevokedError, type PipelockError } from '../../errors.js';
import { readClockFirst } from '../../util/fresh-signal.js';
import type { Lock, LockLostHandler, RedlockAbortSignal, Renewing } from '../lock.js';
import { BLOCKED, HELD, LIMIT, REFUSED, REVOKED, SKIPPED, toLocal, type Cells } from './cells.js';

/** What a WorkerHeld reports to its scheduler (src/lifecycle/worker/renewer.ts). */
export interface HeldOwner {
  readonly cells: Cells;
  readonly boundMs: number;
  readonly maxExtensions: number;
  /** Reads the worker's reports so far (a loss comes with its message and reason); whether `held` is still held. */
  drain(held: WorkerHeld): boolean;
  /** The lock is lost with `error`; `discard`: the worker is told to delete its keys. */
  lose(held: WorkerHeld, error: PipelockError, discard: boolean): void;
  remove(held: WorkerHeld): void;
  /** extend() sent an extension of `duration`: the worker renews for it from now on. */
  retime(held: WorkerHeld, duration: number): void;
}

/**
 * The main thread's side of a lock the worker renews: its signal, and its validity read from the shared cell (own
 * properties over the Lock's, so one Lock class serves both schedulers).
 */
export class WorkerHeld implements Renewing {
  #controller: AbortController | undefined = undefined;
  #epoch = 0;
  active = true;
  /** The Lock's expiration was set to 0 (lost, released, replaced): it reads 0 from then on. */
  gone = false;

  constructor(
    readonly owner: HeldOwner,
    readonly lock: Lock,
    readonly slot: number,
    readonly onLockLost: LockLostHandler | undefined,
  ) {}

  /** performance.now() instant at which the lock stops being valid, as the worker last wrote it. */
  get validUntil(): number {
    return toLocal(this.owner.cells.until(this.slot));
  }

  get signal(): RedlockAbortSignal {
    if (this.#controller !== undefined) return this.#controller.signal;
    // As in-thread: after a blocked loop the worker's report may not have been read yet, the cell has.
    return readClockFirst((this.#controller = new AbortController()).signal, () => { this.check(); });
  }

  /** Lost at once if the cell says so or validity ran out; the worker's report is read first for its message and reason. */
  check(): void {
    if (!this.active) return;
    const state = this.owner.cells.state(this.slot);
    const held = state === HELD || state === SKIPPED;
    if (held && performance.now() < this.validUntil) return;
    if (!this.owner.drain(this)) return;
    if (!held) this.owner.lose(this, this.errorOf(state, '', ''), false);
    else this.owner.lose(this, this.errorOf(state === SKIPPED ? BLOCKED : HELD, '', ''), true);
  }

  /** The error a cell's state stands for; `message` and `reason` from the worker's report, when read. */
  errorOf(state: number, message: string, reason: string): PipelockError {
    const resources = this.lock.resources.join(', ');
    if (state === BLOCKED) return new EventLoopBlockedError(resources, this.owner.boundMs);
    if (state === REVOKED) return new LockRevokedError(resources, reason);
    if (state === LIMIT) return new ExtensionLimitError(this.owner.maxExtensions);
    if (state === REFUSED) return new LockLostError(`${resources}: a renewal was refused: no longer held under its token on a quorum`);
    return new LockLostError(message === '' ? `${resources}: validity ran out before a renewal succeeded` : message);
  }

  /**
   * extend() sends an extension: the worker renews for `duration` from its next order on. The
   * validity stays the worker's (the cell); see docs/auto-extension.md on extend() with renewal 'worker'.
   */
  retime(duration: number): number {
    this.owner.retime(this, duration);
    return ++this.#epoch;
  }

  /** The extension was confirmed: the lock stays in place while the worker holds it. */
  extended(): boolean {
    return this.active;
  }

  abort(error: PipelockError): void {
    (this.#controller ??= new AbortController()).abort(error);
  }

  stop(): void {
    this.owner.remove(this);
  }
}
