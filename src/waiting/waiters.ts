import { kMaxTimerMs } from '../util/alarm.js';
import { LockAbortedError, type ExecutionStats } from '../errors.js';
import { onAbort } from '../util/on-abort.js';
import { gateOf, gateOrder } from './gate.js';
import { kBypassMs } from './turns.js';
import { UNKNOWN, type MemberWatch } from '../watch/watch.js';
import type { Attempt } from '../engine/attempt.js';

/**
 * How a refused call waits among the callers of its process for the same keys: `queue` behind them
 * (a mutex, a write lock: one holder at a time); `alone`, each for itself, all woken by a change
 * (read locks: a writer's release lets them all in); `one`, each for itself, one woken per change
 * (semaphore permits: a release frees one).
 */
export type WaitMode = 'queue' | 'alone' | 'one';

/**
 * The acquire calls of one Redlock that wait for a refused lock, and what wakes them.
 *
 * Local waiters for the same resources queue FIFO behind one network waiter, the head: only the
 * head retries over the network, woken by a release its masters announce (src/watch/watch.ts) or
 * by its retry schedule; the others sleep until they are head. So a hot lock sees one contender per
 * process instead of one per caller, and the order among a process's callers is first come, first
 * served. Across processes, every head is woken by the same invalidation at the same time: fairness
 * comes from wake-ups, not from who happened to sleep the shortest.
 *
 * A wake-up is a hint: the quorum acquire still decides. Nothing here can make a waiter sleep past
 * its schedule (Ticket.sleep's timer is set before anything is read), so a master that stops sending
 * wake-ups — restarted, reconnecting, its tracking table evicted — only costs the polling that
 * waiting was before.
 */
export class Waiters {
  readonly quorum: number;
  /** One watch per member that can have one (@redis/client masters and clusters; ioredis ones are polled); the Redlock's, shared with its Guard. */
  readonly watches: readonly (MemberWatch | undefined)[];
  /** Per set of resources, its waiting calls in arrival order; the first is the head. */
  readonly #queues = new Map<string, Ticket[]>();
  /** Numbers the queues of callers that wait alone. */
  #alone = 0;
  /** Per key, the sleeping heads whose read armed it. */
  readonly #armed = new Map<string, Set<Ticket>>();
  /** The masters in gate order (src/waiting/gate.ts); undefined below three masters, where no vote splits. */
  readonly #gates: readonly number[] | undefined;

  /** `names`: the masters' addresses, which order the gates alike in every process. */
  constructor(watches: readonly (MemberWatch | undefined)[], quorum: number, names: readonly string[] = []) {
    this.quorum = quorum;
    this.watches = watches;
    this.#gates = watches.length >= 3 && names.length === watches.length ? gateOrder(names) : undefined;
  }

  /** The gate master of a wait on `keys` (src/waiting/gate.ts), or -1: none, or its watch is not connected. */
  gate(keys: readonly string[]): number {
    if (this.#gates === undefined) return -1;
    const gate = gateOf(this.#gates, keys[0]!);
    return this.watches[gate]?.readyFor(keys[0]!) === true ? gate : -1;
  }

  /** Whether calls of this process already wait for exactly these resources (a newcomer queues behind them). */
  queued(resources: readonly string[]): boolean {
    return this.#queues.size > 0 && this.#queues.has(queueId(resources));
  }

  join(resources: readonly string[], mode: WaitMode = 'queue'): Ticket {
    const id = mode === 'queue' ? queueId(resources) : `\u0001${++this.#alone}`;
    let queue = this.#queues.get(id);
    if (queue === undefined) {
      queue = [];
      this.#queues.set(id, queue);
    }
    const ticket = new Ticket(this, id, resources, mode === 'one');
    queue.push(ticket);
    return ticket;
  }

  /** The first of this process's callers waiting for exactly these resources, if any. */
  headOf(resources: readonly string[]): Ticket | undefined {
    return this.#queues.size > 0 ? this.#queues.get(queueId(resources))?.[0] : undefined;
  }

  isHead(ticket: Ticket): boolean {
    return this.#queues.get(ticket.id)?.[0] === ticket;
  }

  leave(ticket: Ticket): void {
    const queue = this.#queues.get(ticket.id);
    if (queue === undefined) return;
    const at = queue.indexOf(ticket);
    if (at === -1) return;
    queue.splice(at, 1);
    this.disarm(ticket);
    // Gone from the gate's queue too, so the next in it need not wait out the grace.
    if (ticket.queuedAt !== -1) this.watches[ticket.queuedAt]?.forget(ticket.queue!, ticket.turn!);
    if (queue.length === 0) this.#queues.delete(ticket.id);
    // The next in line is head from now: if it sleeps, it listens for the release from here on.
    // Told in a microtask: when one signal aborts a whole queue, its callers leave one after the
    // other in one dispatch, and promoting each in turn made each read its keys on every master
    // (12,500 aborted waiters: 75,000 reads, which timed out the releases sent beside them).
    else if (at === 0) {
      const next = queue[0]!;
      queueMicrotask(() => {
        if (this.isHead(next)) next.promoted();
      });
    }
  }

  /** Registers a sleeping head for its keys' changes and reads them on every watch. */
  arm(ticket: Ticket): void {
    for (const key of ticket.keys) {
      let heads = this.#armed.get(key);
      if (heads === undefined) {
        heads = new Set();
        this.#armed.set(key, heads);
      }
      heads.add(ticket);
    }
    this.#read(ticket);
  }

  disarm(ticket: Ticket): void {
    for (const key of ticket.keys) {
      const heads = this.#armed.get(key);
      if (heads === undefined) continue;
      heads.delete(ticket);
      if (heads.size === 0) this.#armed.delete(key);
    }
  }

  /** Wakes every head (quit); the Redlock closes the watches. */
  close(): void {
    for (const queue of this.#queues.values()) for (const ticket of queue) ticket.wake();
    this.#queues.clear();
  }

  /**
   * The PTTL of each key on every watch (a gated wait: on its gate alone, whose grant is what its
   * woken attempt needs first): if every key is gone on a quorum (on the gate), the release happened
   * between the refusal and the read (wake now); else the moment every key will have expired there
   * sets a timer, since Redis may push an expiry late or never.
   */
  #read(ticket: Ticket): void {
    const sleep = ticket.sleeps;
    const gate = ticket.gate = ticket.gated ? this.gate(ticket.keys) : -1;
    const watches = gate === -1 ? this.watches : [this.watches[gate]];
    const needed = gate === -1 ? this.quorum : 1;
    // A master that answered the last attempt with an error (a replica's READONLY) still answers
    // reads, and finds the key free: read as free, it woke the call into the same error at once.
    const unreachable = ticket.unreachable;
    const read = (key: string, watch: MemberWatch | undefined): Promise<number> =>
      watch === undefined || unreachable?.[watch.index] === true ? Promise.resolve(UNKNOWN) : watch.read(key, ticket.token);
    const reads = ticket.keys.map((key) => Promise.all(watches.map((watch) => read(key, watch))));
    void Promise.all(reads).then((perKey) => {
      if (ticket.sleeps !== sleep || !ticket.sleeping) return;
      let freeIn = 0;
      for (const pttls of perKey) {
        // Until the key is free on a quorum: absent counts 0, no TTL or unknown never.
        const remaining = pttls.map((pttl) => pttl === -2 ? 0 : pttl < 0 ? Infinity : pttl).sort((a, b) => a - b);
        freeIn = Math.max(freeIn, remaining[needed - 1] ?? Infinity);
      }
      // Free, but its turn is another's: that one's SET is the change to wake for (see changed);
      // if it does not come within the bypass, the lock is anyone's (src/waiting/turns.ts).
      if (freeIn === 0 && ticket.yielded) ticket.wakeAt(performance.now() + kBypassMs + 1);
      else if (freeIn === 0) ticket.wake();
      else {
        ticket.yielded = false;
        if (Number.isFinite(freeIn)) ticket.wakeAt(performance.now() + freeIn + 1);
      }
    });
  }

  /**
   * A watch told of a change to `key` (null: every key); `present`: a waiter had read it present
   * since its last change, so the change is a release. A head that yielded its turn wakes on any
   * change — the one whose turn it was took the lock — to read it again and listen for its release.
   */
  changed(key: string | null, present = true): void {
    if (key === null) {
      for (const heads of [...this.#armed.values()]) for (const ticket of heads) ticket.wake();
      return;
    }
    const heads = this.#armed.get(key);
    if (heads === undefined) return;
    // A change frees one permit at most: of the callers waiting for a permit, one wakes, the longest
    // armed, instead of all of them racing for it. Each master reports a release, so up to N wake
    // per release; the others keep their schedule. (64 callers on 4 semaphores of 8 permits on this
    // 2-core machine: 2,000–2,950 cycles/s against 1,900–2,500 waking all, within the noise.)
    let woken = false;
    for (const ticket of [...heads]) {
      if (ticket.yielded) {
        if (ticket.sleeping) {
          ticket.yielded = false;
          this.#read(ticket);
        }
        continue;
      }
      if (!present) continue;
      if (ticket.one) {
        if (woken) continue;
        woken = true;
      }
      ticket.wake();
    }
  }

  /**
   * A watch's connection dropped: heads that listened on it alone (their gate) are woken to try
   * again ungated; the gate being down, their next read is of every master.
   */
  lost(index: number): void {
    for (const heads of [...this.#armed.values()]) {
      for (const ticket of heads) {
        if (ticket.gate !== index) continue;
        ticket.gate = -1;
        ticket.wake();
      }
    }
  }

  /** A watch (re)connected: nothing is tracked there; read again for every sleeping head. */
  watchReady(): void {
    const heads = new Set<Ticket>();
    for (const set of this.#armed.values()) for (const ticket of set) heads.add(ticket);
    for (const ticket of heads) this.#read(ticket);
  }
}

/** What a lock handed over to a waiting call must be (src/lifecycle/handover.ts). */
export interface HandoverTerms {
  /** The waiter's lock duration, as the PX argument. */
  readonly ttlArg: string;
  /** The waiter's per-master budget (nodeTimeout). */
  readonly budget: number;
  /** The least validity, ms, a lock passed to it without a write must have left (src/lifecycle/handover.ts). */
  readonly least: number;
}

/** A lock passed to a waiter as it stands (src/lifecycle/handover.ts): the holder's token and validity (performance.now()). */
export class Passed {
  constructor(readonly token: string, readonly validUntil: number) {}
}

/** One acquire call's place in its resources' local queue. */
export class Ticket {
  /** Counts sleeps, so a read answered after its sleep ended changes nothing. */
  sleeps = 0;
  /** The token of the call's last attempt (its keys are its own, being undone). */
  token: string | undefined;
  /** Per master, whether its last attempt failed or timed out there: its reads count as unknown. */
  unreachable: readonly boolean[] | undefined;
  /** Whether its wake-ups are to be gated (src/waiting/gate.ts): set by its schedule before each sleep. */
  gated = false;
  /** The master whose change wakes this head (its woken attempt is gated there), or -1: a quorum's; set by each read. */
  gate = -1;
  /** Its id in the queue at the gate (src/waiting/turns.ts), made at its first gated attempt. */
  turn: string | undefined;
  /** That queue's key. */
  queue: string | undefined;
  /** The master whose queue it is in (refused there), or -1. */
  queuedAt = -1;
  /** Its last gated attempt found the lock free but another's turn: it waits for that one to take it. */
  yielded = false;
  /** When it joined (performance.now()): a holder hands its lock only to callers that joined before its chain began (src/lifecycle/handover.ts). */
  readonly joined = performance.now();
  /** What a lock handed to it must be (a plain mutex acquisition's ttl and budget); undefined: it takes none. */
  terms: HandoverTerms | undefined;
  /** A holder of this process is handing it the lock: wake-ups wait for the outcome (see receive). */
  reserved = false;
  /** The handover that won, or the lock passed as it stands, for its acquire call to turn into a Lock (Pacer.handed). */
  handed: Attempt | Passed | undefined;
  /** When the chain of handovers it is reserved in began (its first handover; set with `reserved`). */
  chain = 0;
  #resolve: ((woken: boolean) => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  #hint: NodeJS.Timeout | undefined;
  #cleanup: (() => void) | undefined;
  /** Whether this sleep listens for releases (see sleep). */
  #listening = true;

  /** `one`: woken only if no other such caller was woken by the same change (semaphore permits). */
  constructor(readonly waiters: Waiters, readonly id: string, readonly keys: readonly string[], readonly one = false) {}

  get head(): boolean {
    return this.waiters.isHead(this);
  }

  get sleeping(): boolean {
    return this.#resolve !== undefined;
  }

  /**
   * Sleeps until `until` (false) or a wake-up (true); rejects with LockAbortedError when `signal`
   * aborts. The head listens for its keys' release (unless `listen` is false: its last attempt was
   * lost to errors, which no release heals); the others wait to be head.
   */
  sleep(until: number, signal: AbortSignal | undefined, attempts: () => ReadonlyArray<Promise<ExecutionStats>>, listen = true): Promise<boolean> {
    if (signal?.aborted === true) return Promise.reject(new LockAbortedError(signal.reason, attempts));
    this.sleeps++;
    return new Promise<boolean>((resolve, reject) => {
      this.#timer = setTimeout(() => { this.#end(false); }, Math.min(kMaxTimerMs, Math.max(0, until - performance.now())));
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
    this.#hint = setTimeout(() => { this.#end(true); }, Math.min(kMaxTimerMs, Math.max(0, at - performance.now())));
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
   * The handover it was reserved for is decided: `attempt` won (true: the sleeping call takes it;
   * false: it had aborted, the lock is nobody's), or undefined (it failed: the call wakes to try
   * the masters, the holder having released).
   */
  receive(attempt: Attempt | Passed | undefined): boolean {
    this.reserved = false;
    if (!this.sleeping) return false;
    if (attempt === undefined) {
      this.#end(true);
      return false;
    }
    this.handed = attempt;
    this.#end(true);
    return true;
  }

  /** `force`: the caller aborted, which a reservation does not hold back. */
  #end(woken: boolean, force = false): void {
    const resolve = this.#resolve;
    if (resolve === undefined) return;
    // Held back while a handover is decided; receive() wakes the call either way.
    if (this.reserved && !force) return;
    this.#resolve = undefined;
    clearTimeout(this.#timer);
    clearTimeout(this.#hint);
    this.#cleanup?.();
    this.#cleanup = undefined;
    this.waiters.disarm(this);
    resolve(woken);
  }
}

/** The queue of a set of resources: the same resources in the same order. */
function queueId(resources: readonly string[]): string {
  return resources.length === 1 ? resources[0]! : resources.join('\u0000');
}
