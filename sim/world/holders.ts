import type { Lock } from '../../src/index.js';
import type { Violation } from './check.js';
import type { Claim, History } from './history.js';
import type { Proc } from './process.js';

/** A claim's length when a holder acts at one instant without knowing its validity (using()'s routine). */
const kInstant = 0.001;
/** Redlock's default driftFactor, which the simulated processes keep (run.ts kSettings). */
const kDriftFactor = 0.01;

/**
 * How a workload tells the history what its holders believe, in the holder's process: `take` when
 * acquire() resolved (a lock returned with no validity left is a violation on its own), `see` when
 * it acts again (its validity read anew: renewals move it), `drop` when it calls release.
 */
export class Holders {
  /** Locks returned with no validity left: acquire()'s contract, judged where it resolved. */
  readonly expired: string[] = [];
  /**
   * Auto-extended locks lost in the quiet phase (every master answers within a node timeout) by a
   * process that was not paused meanwhile: the renewals must keep such a lock, extend() or not.
   */
  readonly lost: string[] = [];
  /** Properties a workload judges where it acts (a reentrant holder entering an expired lock). */
  readonly violations: Violation[] = [];
  /** Where a lock's validity began before acquire() resolved (see `take`): the world instant. */
  readonly #since = new WeakMap<Claim, number>();
  #next = 0;

  constructor(readonly history: History) {}

  /**
   * `duration`, what the holder asked for, dates the lock's validity: it began duration − drift
   * before validUntil (its winning attempt's send, src/lifecycle/validity.ts), which may be well
   * before acquire() resolved. A handover's heir sleeps while the releaser's handover sets its keys:
   * a pause of the process then (the releaser's work after release()) eats the heir's validity
   * before the heir holds the lock (handover seed 48: 4.4 ms left of 150, a renewal's round trip is more).
   */
  take(proc: Proc, lock: Lock, resource: string, kind: Claim['kind'], permits = 1, duration?: number): Claim {
    const now = proc.world.now;
    const holder = `h${this.#next++}`;
    // Where the lock's validity began: its winning attempt's send (duration − drift before validUntil).
    const began = duration === undefined ? undefined : proc.worldAt(lock.validUntil - duration + Math.round(duration * kDriftFactor) + 2);
    if (lock.validity <= 0) {
      const text = `${holder} (p${proc.id}) got ${resource} with validity ${lock.validity.toFixed(1)} ms`;
      // Code of its process ran synchronously past the lock's validity since it began (the world stalled under
      // another holder's work, which ran first): acquire() was decided with validity left and its caller saw the lock
      // only after (the 'worker' scenario's seeds 242 and 876 of 10,000, its renewal thread stalled too). That is
      // the lease's limit, as for a holder acting right after a pause. Else pipelock handed out an expired lock
      // (node-redlock #296). A pause between tasks cannot come between the decision and the caller: not counted.
      const from = began ?? now - kInstant;
      if (proc.world.stalls.some(([a, b]) => a < now && b > from)) {
        this.violations.push({ property: 'stalled', resource, at: now, text: `${text}, after a synchronous stall` });
      } else this.expired.push(text);
    }
    const claim: Claim = { holder, proc: proc.id, resource, kind, permits, fence: lock.fence, from: now, to: Math.max(now + kInstant, proc.worldAt(lock.validUntil)) };
    if (began !== undefined && began < now) this.#since.set(claim, began);
    this.history.claims.push(claim);
    this.history.log(proc.id, `${holder} holds ${resource} (${kind}${lock.fence === undefined ? '' : ` fence ${lock.fence}`}) until ${claim.to.toFixed(1)}`);
    return claim;
  }

  /** The holder acts now: it believes its lock valid until validUntil, if any validity is left. */
  see(proc: Proc, claim: Claim, lock: Lock): boolean {
    if (lock.validity <= 0) return false;
    claim.to = Math.max(claim.to, proc.worldAt(lock.validUntil));
    return true;
  }

  /**
   * using()'s routine acts at this instant: it knows only that its signal has not aborted.
   * `stalled`: its process was paused since it last looked, so the signal may not have caught up.
   * `owner`: a reentrant holder's outermost holder (holders of one owner share the lock).
   */
  instant(proc: Proc, holder: string, resource: string, stalled: boolean, owner?: string): void {
    const now = proc.world.now;
    this.history.claims.push({ holder, proc: proc.id, resource, kind: 'x', permits: 1, fence: undefined, from: now, to: now + kInstant, stalled, owner });
    this.history.log(proc.id, `${holder} acts on ${resource} (using)${stalled ? ' after a pause' : ''}`);
  }

  label(): string {
    return `h${this.#next++}`;
  }

  /**
   * An auto-extended lock's holder lets go: in the quiet phase, its lock must not have been lost (see
   * `lost`) unless its process was paused while the lock's validity ran, from where it began (`take`).
   */
  kept(proc: Proc, claim: Claim, lock: Lock, quiet: boolean): void {
    const signal = lock.signal;
    if (!quiet || signal?.aborted !== true || proc.pausedWithin(this.#since.get(claim) ?? claim.from, proc.world.now)) return;
    this.lost.push(`${claim.holder} (p${proc.id}) lost ${claim.resource} in the quiet phase: ${String(signal.reason).slice(0, 120)}`);
  }

  /**
   * The holder lets go now. Its lock's validity may have been cut since it last looked (an
   * extension to a shorter duration cuts it as it is sent): it could not have acted past that.
   */
  drop(proc: Proc, claim: Claim, lock: Lock): void {
    claim.to = Math.min(claim.to, proc.world.now, Math.max(claim.from + kInstant, proc.worldAt(lock.validUntil)));
    this.history.log(proc.id, `${claim.holder} lets go of ${claim.resource}`);
  }
}
