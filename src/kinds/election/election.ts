import { InvalidArgumentError, LockAbortedError, QuorumUnreachableError } from '../../errors.js';
import { counterKeys, raiseFence } from '../../engine/fencing.js';
import { Mutex, type KindHost } from '../../lifecycle/kind.js';
import type { Lock } from '../../lifecycle/lock.js';
import { misconfigured } from '../../engine/misconfigured.js';
import type { Attempt } from '../../engine/attempt.js';
import type { MasterSet } from '../../engine/masters.js';
import type { ResolvedSettings } from '../../settings.js';
import type { HandoverTerms } from '../../waiting/ticket.js';
import type { WaitMode } from '../../waiting/waiters.js';
import { isObject } from '../../util/checks.js';
import { sleep } from '../../util/time.js';
import { resolveElectionOptions, type ResolvedElectionOptions } from './options.js';
import { putRecord, readHistory, readRecord, type HistoryEntry, type RecordKeys } from './record.js';
import { Term } from './term.js';

/** The least time the first campaigner in line has to come for a free lock: a woken thread on a busy machine takes tens of ms. */
const kMinGraceMs = 250;

/** The current leader as a quorum of masters sees it. */
export interface Leader {
  /** The leader's term: its fencing token. */
  readonly term: number;
  /** What it proclaimed last. */
  readonly value: string;
}

/** What campaign() takes: the value to show while leading, and a signal to stop campaigning. */
export interface CampaignOptions {
  /** What leader() and observe() show while this caller leads. @default '' */
  readonly value?: string;
  /** Stops campaigning: campaign() rejects with LockAbortedError and leaves no key behind. */
  readonly signal?: AbortSignal;
}

/**
 * Leader election over a Redlock's masters (etcd's concurrency.Election, client-go's timing): leading is holding the
 * auto-extended lock `name`; campaigners wait in arrival order at its gate (docs/lock-kinds.md#leader-election). A new
 * leader raises the fencing counter for its term (src/engine/fencing.ts), then writes the record leader() reads.
 */
export class Election {
  /** The election's name: its lock's resource. */
  readonly name: string;
  /** Its timing, validated and with defaults filled in. */
  readonly options: ResolvedElectionOptions;
  readonly #host: KindHost;
  readonly #keys: RecordKeys;
  readonly #counters: readonly string[];
  /** Observers of this process sleeping between reads: woken at once by a local change. */
  readonly #sleepers = new Set<() => void>();

  /** @internal From Redlock.election(). */
  constructor(host: KindHost, name: unknown, options: unknown) {
    if (typeof name !== 'string' || name.length === 0) throw new InvalidArgumentError('name', 'must be a non-empty string', name);
    this.options = resolveElectionOptions(options);
    // The record is read beside the lock key in one command: on a Cluster member they could sit in two slots.
    if (host.masters.clustered) throw new InvalidArgumentError('redlock',
      'must have standalone masters for an election (Redis Cluster members are not supported yet)', name);
    this.name = name;
    this.#host = host;
    this.#keys = { lock: name, record: `${name}:leader`, history: `${name}:history` };
    this.#counters = counterKeys([name]);
  }

  /** Resolves with this caller's Term when it leads (until `signal` aborts); a term no quorum took releases and rejects. */
  async campaign(options?: CampaignOptions): Promise<Term> {
    if (options !== undefined && !isObject(options)) throw new InvalidArgumentError('options', 'must be an object', options);
    const value = options?.value ?? '';
    if (typeof value !== 'string') throw new InvalidArgumentError('options.value', 'must be a string', value);
    const signal: unknown = options?.signal;
    if (signal !== undefined && !(signal instanceof AbortSignal))
      throw new InvalidArgumentError('options.signal', 'must be an AbortSignal', signal);
    const { lease, renewDeadline, retryPeriod } = this.options;
    const host = this.#host;
    const settings = {
      signal, autoExtend: true, retryCount: -1, acquireTimeout: Infinity, maxExtensions: Infinity, maxHoldTime: Infinity,
      retryDelay: retryPeriod, retryJitter: Math.floor(retryPeriod * 0.2), automaticExtensionThreshold: renewDeadline,
    };
    // In turn from its arrival, across processes too: the first in line keeps a free lock to itself for this long.
    const lock = await host.acquireKind(new Campaign(this.name, Math.max(kMinGraceMs, retryPeriod / 2)), lease, settings);
    let written: HistoryEntry | undefined;
    try {
      const budget = host.settings.nodeTimeout;
      // The clock (µs) is the floor a counter recreated after it expired starts from, as the fenced
      // acquire's does: this campaigner's clock, so terms rest on the campaigners' clocks where counters were lost.
      const failed = (raise: Attempt): void => { settled(host.masters, raise); };
      const term = await raiseFence(host.masters, this.#counters, Date.now() * 1000, budget, { failed, fromClock: true });
      if (term === undefined) throw new QuorumUnreachableError(`could not raise the term of ${this.name} on a quorum`);
      // Set before the write: a write that reached some masters only is withdrawn from them too.
      written = { term, value, seq: 0 };
      if (!(await this.put(lock, term, value, 0)))
        throw new QuorumUnreachableError(`could not write the leader record of ${this.name} on a quorum`);
      // Lost while the term was being written, or given up: not a leadership to hand out.
      if (lock.signal!.aborted) throw lock.signal!.reason;
      if (signal?.aborted === true) throw new LockAbortedError(signal.reason);
      this.changed();
      return new Term(this, lock, term, value);
    } catch (error) {
      // Given up after its write: not a leadership, so observers are not told of it.
      await this.#withdraw(lock, written).catch((cause: unknown) => { host.report(cause); });
      await lock.release().catch((cause: unknown) => { host.report(cause); });
      throw error;
    }
  }

  /** The current leader and its term, or undefined when none holds the election on a quorum. */
  async leader(): Promise<Leader | undefined> {
    const record = await readRecord(this.#host.masters, this.#keys, this.#host.settings.nodeTimeout);
    return record === undefined ? undefined : { term: record.term, value: record.value };
  }

  /**
   * Leader changes in order, each once: the current leader, then every new term and value from the history (the
   * last 128), read every `retryPeriod` and on a local change. Ends when `signal` aborts, or with
   * QuorumUnreachableError when a read reaches fewer than a quorum.
   */
  async *observe(options?: { readonly signal?: AbortSignal }): AsyncGenerator<Leader, void, undefined> {
    if (options !== undefined && !isObject(options)) throw new InvalidArgumentError('options', 'must be an object', options);
    const signal = options?.signal;
    if (signal !== undefined && !(signal instanceof AbortSignal))
      throw new InvalidArgumentError('options.signal', 'must be an AbortSignal', signal);
    if (signal?.aborted === true) return;
    const { masters, settings } = this.#host;
    // Where the history stands now: changes before it are the past, not news.
    const past = await readHistory(masters, this.#keys, settings.nodeTimeout);
    let cursor: HistoryEntry | undefined = past.at(-1);
    const current = await readRecord(masters, this.#keys, settings.nodeTimeout);
    if (current !== undefined && (cursor === undefined || after(current, cursor))) cursor = current;
    let last: Leader | undefined;
    if (current !== undefined) {
      last = { term: current.term, value: current.value };
      yield last;
    }
    for (;;) {
      await this.#sleep(signal);
      // Read again after the sleep (the narrowing of the first check does not hold across it).
      if (isAborted(signal)) return;
      for (const entry of await readHistory(masters, this.#keys, settings.nodeTimeout)) {
        if (cursor !== undefined && !after(entry, cursor)) continue;
        cursor = entry;
        // A proclaim of the value already shown is not a change.
        if (last !== undefined && entry.term === last.term && entry.value === last.value) continue;
        last = { term: entry.term, value: entry.value };
        yield last;
      }
    }
  }

  async #sleep(signal: AbortSignal | undefined): Promise<void> {
    const woken = new AbortController();
    const wake = (): void => { woken.abort(); };
    this.#sleepers.add(wake);
    await sleep(this.options.retryPeriod, signal === undefined ? woken.signal : AbortSignal.any([signal, woken.signal]));
    this.#sleepers.delete(wake);
  }

  /** @internal Writes (erases, with no value) the record; false without a quorum, MisconfigurationError where none can. */
  async put(lock: Lock, term: number, value: string | undefined, seq: number): Promise<boolean> {
    const record = value === undefined ? undefined : { token: lock.value, term, value, seq };
    const { masters, settings } = this.#host;
    return settled(masters, await putRecord(masters, this.#keys, lock.value, record, settings.nodeTimeout).done);
  }

  /** A campaign given up: its record erased and its change (if written) taken out of the history. */
  async #withdraw(lock: Lock, written: HistoryEntry | undefined): Promise<void> {
    const { masters, settings } = this.#host;
    await putRecord(masters, this.#keys, lock.value, undefined, settings.nodeTimeout, written).done;
  }

  /** @internal */
  changed(): void {
    for (const wake of [...this.#sleepers]) wake();
  }
}

/** A campaign: the election's lock, a mutex that waits in turn from its arrival, every attempt to the gate first. */
class Campaign extends Mutex {
  constructor(name: string, readonly graceMs: number) {
    super([name]);
  }

  override get name(): string {
    return 'election';
  }

  override get waiting(): WaitMode {
    return 'turn';
  }

  /** Never passed a lock as it stands: records count where the lock key holds their token, so a passed one revives them. */
  override terms(_duration: number, ttlArg: string, s: ResolvedSettings): HandoverTerms {
    return { ttlArg, budget: s.nodeTimeout, least: Infinity };
  }
}

/** Whether change `a` comes after change `b`: a later term, or a later proclaim in the same term. */
function after(a: HistoryEntry, b: HistoryEntry): boolean {
  return a.term > b.term || (a.term === b.term && a.seq > b.seq);
}

/** Whether `attempt` won; throws when it lost to errors no retry heals (src/engine/misconfigured.ts). */
function settled(masters: MasterSet, attempt: Attempt): boolean {
  if (attempt.won) return true;
  const misconfiguration = misconfigured(attempt, masters.nodes, () => masters.stats([attempt]));
  if (misconfiguration !== undefined) throw misconfiguration;
  return false;
}

function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}
