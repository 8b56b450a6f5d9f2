import type { KeyNames } from '../engine/keys.js';
import { gateOf, gateOrder } from './gate.js';
import { Ticket, type Line } from './ticket.js';
import type { WatchHub, WatchListener } from '../watch/hub.js';
import { UNKNOWN, type MemberWatch } from '../watch/watch.js';

/**
 * How a refused call waits among its process's callers for the same keys: `line` behind them (one holder), `alone`
 * (all woken by a change: read locks), `one` (one woken per change: permits), `turn` (in line from arrival, gate
 * first, order over speed: an election; src/waiting/gate.ts).
 */
export type WaitMode = 'line' | 'alone' | 'one' | 'turn';

/** How one call waits (a lock Kind fits): the keys it sleeps on and its mode. */
export interface Waiting {
  readonly waitKeys: readonly string[];
  readonly waiting: WaitMode;
  /** In turn: how long the first in line keeps a free lock to itself, ms (src/waiting/gate.ts). */
  readonly graceMs?: number;
}

/** Whether callers of `mode` wait in line behind each other (the others wait each for itself). */
export function inLine(mode: WaitMode): boolean {
  return mode === 'line' || mode === 'turn';
}

/**
 * The acquire calls of one Redlock that wait for a refused lock, and what wakes them: local callers line up behind
 * one head that alone retries over the network, woken by its masters' release pushes (src/watch/watch.ts) or its
 * schedule. A wake-up is a hint; the quorum decides, and a lost push only costs polling (docs/decisions/0012).
 */
export class Waiters implements Line, WatchListener {
  readonly quorum: number;
  /** One watch per member that can have one (every client kind pipelock knows); the Redlock's, shared with its Guard. */
  readonly watches: readonly (MemberWatch | undefined)[];
  /** Per set of resources, its waiting calls in arrival order; the first is the head. */
  readonly #lines = new Map<string, Ticket[]>();
  /** quit() came: no ticket sleeps from now on. */
  #closed = false;
  /** Numbers the lines of callers that wait alone (one each). */
  #alone = 0;
  /** Per key, the sleeping heads whose read armed it. */
  readonly #armed = new Map<string, Set<Ticket>>();
  /** The masters in gate order (src/waiting/gate.ts); undefined below three masters, where no vote splits. */
  readonly #gates: readonly number[] | undefined;
  /** The keys the masters see for a line's resources (its tickets' keys, which the watches read). */
  readonly #keys: KeyNames;

  /**
   * `names`: the masters' addresses, ordering the gates alike in every process. `scripting`: whether every master runs
   * scripts; without, waiting keeps to what needs none (wake-ups, the local line), as turns and handover are scripts.
   */
  constructor(hub: WatchHub, quorum: number, keys: KeyNames, names: readonly string[] = [],
    readonly scripting: () => boolean = () => true) {
    const watches = hub.watches;
    this.quorum = quorum;
    this.#keys = keys;
    this.watches = watches;
    this.#gates = watches.length >= 3 && names.length === watches.length ? gateOrder(names) : undefined;
    hub.listen(this);
  }

  /** The gate master of a wait on `keys` (as the masters name them; src/waiting/gate.ts), or -1: none, or its watch is down. */
  gate(keys: readonly string[]): number {
    if (this.#gates === undefined || !this.scripting()) return -1;
    const gate = gateOf(this.#gates, keys[0]!);
    return this.watches[gate]?.readyFor(keys[0]!) === true ? gate : -1;
  }

  /** Whether calls of this process already wait for exactly these resources (a newcomer joins their line). */
  inLine(resources: readonly string[]): boolean {
    return this.#lines.size > 0 && this.#lines.has(lineId(resources));
  }

  join(resources: readonly string[], mode: WaitMode = 'line'): Ticket {
    const id = inLine(mode) ? lineId(resources) : `\u0001${++this.#alone}`;
    let line = this.#lines.get(id);
    if (line === undefined) {
      line = [];
      this.#lines.set(id, line);
    }
    const ticket = new Ticket(this, id, this.#keys.all(resources), mode === 'one');
    line.push(ticket);
    return ticket;
  }

  /** The first of this process's callers waiting for exactly these resources, if any. */
  headOf(resources: readonly string[]): Ticket | undefined {
    return this.#lines.size > 0 ? this.#lines.get(lineId(resources))?.[0] : undefined;
  }

  isHead(ticket: Ticket): boolean {
    return this.#lines.get(ticket.id)?.[0] === ticket;
  }

  leave(ticket: Ticket): void {
    const line = this.#lines.get(ticket.id);
    if (line === undefined) return;
    const at = line.indexOf(ticket);
    if (at === -1) return;
    line.splice(at, 1);
    this.disarm(ticket);
    // Gone from the turns at the gate too, so the next there need not wait out the grace.
    if (ticket.turnsAt !== -1) this.watches[ticket.turnsAt]?.forget(ticket.turnsKey!, ticket.turn!);
    if (line.length === 0) this.#lines.delete(ticket.id);
    // The next in line is head from now: if it sleeps, it listens for the release from here on.
    // Told in a microtask: when one signal aborts a whole line, its callers leave one after the
    // other in one dispatch, and promoting each in turn made each read its keys on every master
    // (12,500 aborted waiters: 75,000 reads, which timed out the releases sent beside them).
    else if (at === 0) {
      const next = line[0]!;
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

  get closed(): boolean {
    return this.#closed;
  }

  /** Wakes every head (quit); the Redlock closes the watches. */
  close(): void {
    this.#closed = true;
    for (const line of this.#lines.values()) for (const ticket of line) ticket.wake();
    this.#lines.clear();
  }

  /**
   * The PTTL of each key on every watch (a gated wait: its gate's): gone on a quorum, the release came between refusal
   * and read (wake now); else a timer at the keys' expiry, as Redis may push an expiry late or never.
   */
  #read(ticket: Ticket): void {
    const sleep = ticket.sleeps;
    const gate = ticket.gated ? this.gate(ticket.keys) : -1;
    ticket.listenAt(gate);
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
      // if it does not come within the bypass, the lock is anyone's (src/waiting/gate.ts).
      if (freeIn === 0 && ticket.yielded) ticket.wakeAt(performance.now() + ticket.bypassMs + 1);
      else if (freeIn === 0) ticket.wake();
      else {
        ticket.unyield();
        if (Number.isFinite(freeIn)) ticket.wakeAt(performance.now() + freeIn + 1);
      }
    });
  }

  /**
   * A watch told of a change to `key` (null: every key); `present`: read present since, so it is a release. A head
   * that yielded its turn wakes on any change, to read again and listen for the next release.
   */
  changed(_index: number, key: string | null, present = true): void {
    if (key === null) {
      for (const heads of [...this.#armed.values()]) for (const ticket of heads) ticket.wake();
      return;
    }
    const heads = this.#armed.get(key);
    if (heads === undefined) return;
    // A change frees one permit at most: of the callers waiting for a permit, one wakes, the longest
    // armed, instead of all of them racing for it. Each master reports a release, so up to N wake
    // per release; the others keep their schedule (docs/decisions/0005-semaphore-waiting.md).
    let woken = false;
    for (const ticket of [...heads]) {
      if (ticket.yielded) {
        if (ticket.sleeping) {
          ticket.unyield();
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

  /** A watch dropped: heads listening on it alone (their gate) wake to try again ungated. */
  lost(index: number): void {
    for (const heads of [...this.#armed.values()]) {
      for (const ticket of heads) {
        if (ticket.gate !== index) continue;
        ticket.listenAt(-1);
        ticket.wake();
      }
    }
  }

  /** A watch (re)connected: nothing is tracked there; read again for every sleeping head. */
  ready(): void {
    const heads = new Set<Ticket>();
    for (const set of this.#armed.values()) for (const ticket of set) heads.add(ticket);
    for (const ticket of heads) this.#read(ticket);
  }
}

/** The line of a set of resources: the same resources in the same order. */
function lineId(resources: readonly string[]): string {
  return resources.length === 1 ? resources[0]! : resources.join('\u0000');
}
