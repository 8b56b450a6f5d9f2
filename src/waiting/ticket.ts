import { LockAbortedError, RedlockClosedError, type ExecutionStats } from '../errors.js';
import { FOR, type Attempt } from '../engine/attempt.js';
import { after, msUntil } from '../util/time.js';
import { onAbort } from '../util/on-abort.js';

/** The line a ticket stands in (src/waiting/waiters.ts's Waiters): who is head, and who listens for releases. */
export interface Line {
  /** quit() came: its tickets sleep no more. */
  readonly closed: boolean;
  isHead(ticket: Ticket): boolean;
  /** Registers a sleeping head for its keys' changes and reads them. */
  arm(ticket: Ticket): void;
  disarm(ticket: Ticket): void;
  leave(ticket: Ticket): void;
}

/** What a lock handed over to a waiting call must be (src/waiting/handover.ts). */
export interface HandoverTerms {
  /** The waiter's lock duration, as the PX argument. */
  readonly ttlArg: string;
  /** The waiter's per-master budget (nodeTimeout). */
  readonly budget: number;
  /** The least validity, ms, a lock passed to it without a write must have left (src/waiting/handover.ts). */
  readonly least: number;
}

/** A lock passed to a waiter as it stands (src/waiting/handover.ts): the holder's token and validity (performance.now()). */
export class Passed {
  /** `from`: the Lock that passed them, which the waiter's Lock takes over from. */
  constructor(readonly token: string, readonly validUntil: number, readonly from: object) {}
}

/** One acquire call's place in its resources' local line. */
export class Ticket {
  /** Counts sleeps, so a read answered after its sleep ended changes nothing. */
  #sleeps = 0;
  /** The token of the call's last attempt (its keys are its own, being undone). */
  #token: string | undefined;
  /** Per master, whether its last attempt failed or timed out there: its reads count as unknown. */
  #unreachable: readonly boolean[] | undefined;
  /** Whether its wake-ups are to be gated (src/waiting/gate.ts): set by its schedule before each sleep. */
  #gated = false;
  /** The master whose change wakes this head (its woken attempt is gated there), or -1: a quorum's; set by each read. */
  #gate = -1;
  /** Its id in the turns at the gate (src/waiting/gate.ts), made at its first gated attempt. */
  #turn: string | undefined;
  /** The key of those turns. */
  #turnsKey: string | undefined;
  /** The master whose turns it joined (refused there), or -1: it leaves them when its call is over, granted or not. */
  #turnsAt = -1;
  /** Its last gated attempt found the lock free but another's turn: it waits for that one to take it. */
  #yielded = false;
  /** How long it waits for that one before trying again, ms (the bypass of its turns). */
  #bypassMs = 0;
  /** When it joined (performance.now()): a lock is handed only to callers that joined before its chain began (handover.ts). */
  readonly joined = performance.now();
  /** What a lock handed to it must be (a plain mutex acquisition's ttl and budget); undefined: it takes none. */
  #terms: HandoverTerms | undefined;
  /** A holder of this process is handing it the lock: wake-ups wait for the outcome (see receive). */
  #reserved = false;
  /** The handover that won, or the lock passed as it stands, for its acquire call to turn into a Lock (Wait.handed). */
  #handed: Attempt | Passed | undefined;
  /** When the chain of handovers it is reserved in began (its first handover; set by reserve). */
  #chain = 0;
  #resolve: ((woken: boolean) => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  #hint: NodeJS.Timeout | undefined;
  #cleanup: (() => void) | undefined;
  /** Whether this sleep listens for releases (see sleep). */
  #listening = true;

  /** `one`: woken only if no other such caller was woken by the same change (semaphore permits). */
  constructor(readonly waiters: Line, readonly id: string, readonly keys: readonly string[], readonly one = false) {}

  get head(): boolean {
    return this.waiters.isHead(this);
  }

  get sleeping(): boolean {
    return this.#resolve !== undefined;
  }

  get sleeps(): number { return this.#sleeps; }
  get token(): string | undefined { return this.#token; }
  get unreachable(): readonly boolean[] | undefined { return this.#unreachable; }
  get gated(): boolean { return this.#gated; }
  get gate(): number { return this.#gate; }
  get turn(): string | undefined { return this.#turn; }
  get turnsKey(): string | undefined { return this.#turnsKey; }
  get turnsAt(): number { return this.#turnsAt; }
  get yielded(): boolean { return this.#yielded; }
  get bypassMs(): number { return this.#bypassMs; }
  get terms(): HandoverTerms | undefined { return this.#terms; }
  get reserved(): boolean { return this.#reserved; }
  get handed(): Attempt | Passed | undefined { return this.#handed; }
  get chain(): number { return this.#chain; }

  /** Before it sleeps: its call's last attempt (token, masters unreachable) and what a lock handed to it must be. */
  brief(token: string | undefined, unreachable: readonly boolean[] | undefined, terms: HandoverTerms | undefined): void {
    this.#token = token;
    this.#unreachable = unreachable;
    this.#terms = terms;
  }

  /** Whether the wake-ups of its next sleep are gated (src/waiting/gate.ts); the last sleep's gate is forgotten. */
  gateNext(gated: boolean): void {
    this.#gated = gated;
    this.#gate = -1;
  }

  /** The master whose change wakes it from now on, or -1: a quorum's (a read's choice, or its gate's watch dropped). */
  listenAt(gate: number): void {
    this.#gate = gate;
  }

  /**
   * Its place in the turns at the gate: `key` names them, `id` is its own; kept once made. `bypassMs`: how long a free
   * lock waits there for another first in line (src/waiting/gate.ts), after which this one tries again.
   */
  takeTurn(key: string, id: string, bypassMs: number): void {
    this.#turnsKey ??= key;
    this.#turn ??= id;
    this.#bypassMs = bypassMs;
  }

  /**
   * Its call's last attempt was decided, gated at `gate` (or -1: not gated): whether it joined the turns there, and
   * whether it found the lock free but another's turn (it then listens for that one's take). A grant there keeps its
   * place: the quorum may refuse what the gate granted (a release that reached the gate first), and a first that lost
   * its place to that split was served after those behind it.
   */
  attempted(attempt: Attempt, gate: number): void {
    this.#yielded = false;
    if (gate === -1) return;
    if (attempt.votes[gate] !== FOR) this.#turnsAt = gate;
    // Free, but another's turn: the call listens for the lock being taken, not for it being free.
    this.#yielded = attempt.counts?.[gate] === -1;
  }

  /** It listens for a release again, not for another's take (that one took the lock, or it is not free). */
  unyield(): void {
    this.#yielded = false;
  }

  /** A holder of this process hands it the lock, in a chain of handovers that began at `chain` (src/waiting/handover.ts). */
  reserve(chain: number): void {
    this.#reserved = true;
    this.#chain = chain;
  }

  /** The lock handed to it (once), for its call to turn into a Lock; or undefined. */
  takeHanded(): Attempt | Passed | undefined {
    const handed = this.#handed;
    this.#handed = undefined;
    return handed;
  }

  /**
   * Sleeps until `until` (false) or a wake-up (true); rejects with LockAbortedError on `signal`. The head listens for
   * its keys' release unless `listen` is false (lost to errors, which no release heals).
   */
  sleep(until: number, signal: AbortSignal | undefined, attempts: () => ReadonlyArray<Promise<ExecutionStats>>, listen =
    true): Promise<boolean> {
    if (signal?.aborted === true) return Promise.reject(new LockAbortedError(signal.reason, attempts));
    // After quit() nobody would wake it: a call lost to errors slept out its whole retry schedule (an election's
    // campaign, forever), holding its process open.
    if (this.waiters.closed) return Promise.reject(new RedlockClosedError());
    this.#sleeps++;
    return new Promise<boolean>((resolve, reject) => {
      this.#timer = after(msUntil(until), () => { this.#end(false); });
      this.#resolve = resolve;
      if (signal !== undefined) {
        this.#cleanup = onAbort(signal, () => {
          this.#resolve = () => { reject(new LockAbortedError(signal.reason, attempts)); };
          this.#end(false, true);
        });
      }
      this.#listening = listen;
      if (listen && this.head) this.waiters.arm(this);
    });
  }

  wake(): void {
    this.#end(true);
  }

  /** Wakes at `at` unless something else wakes it first (a key's expiry, which Redis may not push). */
  wakeAt(at: number): void {
    if (!this.sleeping) return;
    clearTimeout(this.#hint);
    this.#hint = after(msUntil(at), () => { this.#end(true); });
  }

  /** Became head while asleep. */
  promoted(): void {
    if (this.sleeping && this.#listening) this.waiters.arm(this);
  }

  leave(): void {
    this.#end(false);
    this.waiters.leave(this);
  }

  /**
   * The handover it was reserved for is decided: won (true: the call takes it; false: it had aborted), or undefined
   * (failed: the call wakes to try the masters).
   */
  receive(attempt: Attempt | Passed | undefined): boolean {
    this.#reserved = false;
    if (!this.sleeping) return false;
    if (attempt === undefined) {
      this.#end(true);
      return false;
    }
    this.#handed = attempt;
    this.#end(true);
    return true;
  }

  /** `force`: the caller aborted, which a reservation does not hold back. */
  #end(woken: boolean, force = false): void {
    const resolve = this.#resolve;
    if (resolve === undefined) return;
    // Held back while a handover is decided; receive() wakes the call either way.
    if (this.#reserved && !force) return;
    this.#resolve = undefined;
    clearTimeout(this.#timer);
    clearTimeout(this.#hint);
    this.#cleanup?.();
    this.#cleanup = undefined;
    this.waiters.disarm(this);
    resolve(woken);
  }
}

