import type { RedisClientOptions } from '@redis/client';
import type { MasterClient, MemberEntry } from '../clients.js';
import { InvalidArgumentError, QuorumUnreachableError, RedlockClosedError, ResourceLockedError, type ExecutionStats,
  type NodeOutcome } from '../errors.js';
import { OP_RELEASE, type OpCode } from '../protocol/opcodes.js';
import { ClusterTransport } from '../transport/cluster/transport.js';
import { keyPrefixOf, memberKind, openTransport, type ConnectionMode } from '../transport/members.js';
import { kMaxTimerMs } from '../util/alarm.js';
import { msUntil, within } from '../util/time.js';
import { AGAINST, Attempt, FOR, PENDING } from './attempt.js';
import { publishCapability, publishNodeError } from './channels.js';
import { Deadlines } from './deadlines.js';
import { Flusher } from './flusher.js';
import { KeyNames } from './keys.js';
import { capable, type CapabilityChange } from './capability.js';
import { Master, type MasterOptions } from './master.js';
import { connectionEvent, Opening } from './opening.js';
import { Read, type Ballot } from './read.js';
import { Retry } from './retry.js';
import { Stalls } from './unanswered.js';
import { quorumSize } from './quorum.js';
import { describeOutcomes, mayHold, outcomesOf, statsOf, type Voted } from './records.js';

/** Where the engine's failures go: the facade's 'error' event, built only when someone listens. */
export interface Reports {
  readonly wanted: () => boolean;
  readonly report: (error: unknown) => void;
  /** A member's capabilities changed (its probe answered, or it fell back to scripts): the facade's 'capability' event. */
  readonly capability?: (change: CapabilityChange) => void;
}

/** The settings the masters run with (a ResolvedSettings fits). */
export interface MasterSettings extends MasterOptions {
  readonly nodeTimeout: number;
  /** Which connection each member sends on (src/transport/members.ts); 'auto' when unset. */
  readonly connection?: ConnectionMode;
}

/**
 * The masters of one Redlock: their connections, one Master per member, one deadline timer, and the forward half
 * of the data path. Every operation of the lifecycle, the kinds, handover and run-once sends through here.
 */
export class MasterSet {
  readonly nodes: readonly Master[];
  readonly quorum: number;
  /** The clients as given (URLs: the clients opened from them), in order. */
  readonly clients: Set<MasterClient>;
  /** The keys the masters see for pipelock's names (the clients' key prefix before each). */
  readonly names: KeyNames;
  /** Some member is a Redis Cluster: a lock's keys must share a slot (src/transport/cluster/slots.ts). */
  readonly clustered: boolean;
  readonly #settings: MasterSettings;
  readonly #reports: Reports;
  readonly #deadlines: Deadlines;
  readonly #opening: Opening;
  readonly #stalls: Stalls;
  /** Aborted by shut(), which a ready() waiting for connections wakes to. */
  readonly #closing = new AbortController();
  #closed = false;

  /** `reports` hears every master-level failure (node-redlock's 'error' event). */
  constructor(entries: readonly MemberEntry[], settings: MasterSettings, clientOptions: RedisClientOptions | undefined, reports: Reports) {
    this.#settings = settings;
    this.#reports = reports;
    const nodes: Master[] = [];
    this.#deadlines = new Deadlines(nodes);
    this.#stalls = new Stalls(entries.length, quorumSize(entries.length));
    const shared = { deadlines: this.#deadlines, stalls: this.#stalls, flusher: new Flusher() };
    for (const [index, entry] of entries.entries()) {
      const transport = openTransport(entry, index, clientOptions, (error) => {
        this.#onNodeError(nodes[index]!, error);
      }, settings.connection);
      const kind = memberKind(entry);
      nodes.push(new Master(index, transport, kind === 'url' || kind === 'seeds', settings, this.#onNodeError, shared, this.#onCapability));
    }
    this.nodes = nodes;
    this.names = new KeyNames(keyPrefixOf(entries));
    this.clients = new Set(nodes.map((node) => node.client));
    this.clustered = nodes.some((node) => node.transport instanceof ClusterTransport);
    this.quorum = quorumSize(nodes.length);
    this.#opening = new Opening(nodes.map((node) => node.transport));
  }

  /**
   * Undefined once the connections that were opening at construction are ready (or failed once);
   * until then, resolves when they are, after `budget` ms, or at `deadline` (performance.now()):
   * the first operations wait for it so that their writes reach every master at once (src/engine/opening.ts).
   */
  opened(deadline: number, budget: number): Promise<void> | undefined {
    return this.#opening.until(deadline, budget);
  }

  readonly #onCapability = (change: CapabilityChange): void => {
    publishCapability(change);
    this.#reports.capability?.(change);
  };

  /** Every master runs scripts for this user (what the gate and the handover need). */
  get scripting(): boolean {
    const nodes = this.nodes;
    for (let i = 0; i < nodes.length; i++) if (!nodes[i]!.capabilities.scripting) return false;
    return true;
  }

  /** Whether quit() began (a call, not a getter: read again after an await, where the compiler would keep a property's earlier value). */
  isClosed(): boolean {
    return this.#closed;
  }

  assertOpen(): void {
    if (this.#closed) throw new RedlockClosedError();
  }

  /** Resolves once a quorum of masters is connected (see Redlock.ready). */
  async ready(timeoutMs: number): Promise<void> {
    if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs < 0)
      throw new InvalidArgumentError('timeoutMs', 'must be a number of ms ≥ 0', timeoutMs);
    const deadline = performance.now() + timeoutMs;
    const nodes = this.nodes;
    for (;;) {
      // Closed connections never become ready: say so rather than wait out the timeout.
      this.assertOpen();
      const ready = nodes.filter((node) => node.transport.isReady).length;
      if (ready >= this.quorum) {
        // The others still opening are waited for too (within the timeout): the first lock goes to all.
        await this.#opening.until(deadline);
        return capable(nodes, this.quorum, deadline);
      }
      if (performance.now() >= deadline) {
        const outcomes = nodes.map((n): NodeOutcome => ({ node: n.index, name: n.name, vote: n.transport.isReady ? 'for' : 'error',
          ...(n.lastError ? { error: n.lastError } : {}) }));
        throw new QuorumUnreachableError(`only ${ready} of ${nodes.length} masters connected within ${timeoutMs} ms: `
          + describeOutcomes(outcomes), [], outcomes);
      }
      await connectionEvent(nodes.map((node) => node.transport), this.#closing.signal, deadline);
    }
  }

  /** An attempt over these masters, not yet sent: its clock (budget and validity) starts when the coalescer sends it. */
  attempt(opcode: OpCode, keys: readonly string[], token: string, ttlArg: string, budget: number, needAll: boolean): Attempt {
    return new Attempt(opcode, this.names.all(keys), token, ttlArg, this.quorum, performance.now(), budget, needAll, this.nodes.length);
  }

  /** One operation sent to every master, with its own quorum tally. */
  execute(opcode: OpCode, keys: readonly string[], token: string, ttlArg: string, budget: number, target = 0, extra = ''): Attempt {
    this.assertOpen();
    const attempt = this.attempt(opcode, keys, token, ttlArg, budget, false);
    attempt.target = target;
    attempt.extra = extra;
    this.dispatch(attempt);
    return attempt;
  }

  /** A read of `keys` on every master, or only where `only` is true (src/engine/read.ts). */
  read(opcode: OpCode, keys: readonly string[], budget: number, ballot?: Ballot, only?: readonly boolean[]): Read {
    this.assertOpen();
    const nodes = this.nodes;
    const read = new Read(opcode, this.names.all(keys), this.quorum, budget, nodes.length, ballot);
    for (let i = 0; i < nodes.length; i++) {
      if (only === undefined || only[i] === true) nodes[i]!.enqueue(read);
      else read.skip(i);
    }
    return read;
  }

  /** `op` queued on master `index` alone (a gated attempt's call to its gate, src/waiting/gate.ts). */
  enqueueOn(index: number, op: Attempt): void {
    this.nodes[index]!.enqueue(op);
  }

  /** `attempt` queued on every master that has not voted yet (past its gate; those out of budget timed out already). */
  sendToPending(attempt: Attempt): void {
    const nodes = this.nodes;
    for (let i = 0; i < nodes.length; i++) {
      if (attempt.votes[i] !== PENDING) continue;
      if (this.#closed) attempt.settle(i, new RedlockClosedError());
      else nodes[i]!.enqueue(attempt);
    }
  }

  dispatch(attempt: Attempt): void {
    const nodes = this.nodes;
    for (let i = 0; i < nodes.length; i++) nodes[i]!.enqueue(attempt);
  }

  /**
   * `previous` again, asked only of the masters that did not answer it (timed out or failed): the
   * others' answers are carried over as they were, so the new attempt's tally is the whole
   * picture. For operations that are safe to repeat (an owner-checked release).
   */
  retry(previous: Attempt, budget: number): Attempt {
    this.assertOpen();
    const nodes = this.nodes;
    const again = new Retry(previous.opcode, previous.keys, previous.token, previous.ttlArg, this.quorum, performance.now(),
      budget, false, nodes.length);
    for (let i = 0; i < nodes.length; i++) {
      const vote = previous.votes[i];
      if (vote === FOR || vote === AGAINST) again.carry(i, previous);
      else nodes[i]!.enqueue(again);
    }
    return again;
  }

  /** Owner-checked delete (`release`: the kind's release) of a failed attempt's keys on every master that may have set them. */
  async cleanup(attempt: Attempt, resources: readonly string[], release: OpCode = OP_RELEASE): Promise<void> {
    const nodes = this.nodes;
    const undo = this.attempt(release, resources, attempt.token, '0', attempt.budget, true);
    for (let i = 0; i < nodes.length; i++) {
      if (mayHold(attempt, i)) nodes[i]!.enqueue(undo);
      else undo.skip(i);
    }
    if (undo.pending === 0) return;
    await undo.done;
  }

  /** Best-effort owner-checked delete of a lost lock's keys on every master, so the resource frees before its TTL. */
  discard(resources: readonly string[], token: string, release: OpCode = OP_RELEASE): void {
    this.dispatch(this.attempt(release, resources, token, '0', this.#settings.nodeTimeout, true));
  }

  /** Every master's part in one attempt (cold path: built on demand). */
  outcomes(attempt: Attempt): NodeOutcome[] {
    return outcomesOf(attempt, this.nodes);
  }

  /** node-redlock's stats promises, built only when someone reads them. */
  stats(attempts: readonly Voted[]): ReadonlyArray<Promise<ExecutionStats>> {
    return attempts.map((attempt) => statsOf(attempt, this.nodes));
  }

  /**
   * node-redlock v5's 'error' event for every master that voted against an attempt (its README's
   * listener filters them out by class), emitted once every master of the attempt has answered, with
   * the same errors as the attempt's stats. Nothing is built unless someone listens.
   */
  reportRefusals(attempt: Attempt): void {
    if (!this.#reports.wanted()) return;
    void statsOf(attempt, this.nodes).then((stats) => {
      for (const error of stats.votesAgainst.values()) if (error instanceof ResourceLockedError) this.report(error);
    });
  }

  /** Reports an error that has no caller to throw to (node-redlock's 'error' event, only if someone listens). */
  report(error: unknown): void {
    if (this.#reports.wanted()) this.#reports.report(error);
  }

  /** How long quit() gives the masters to answer what was sent, and the connections to close. */
  get #graceMs(): number {
    return Math.min(kMaxTimerMs, Math.max(250, 2 * this.#settings.nodeTimeout));
  }

  /** From now on nothing is sent (RedlockClosedError); answers false when already closed. */
  shut(): boolean {
    if (this.#closed) return false;
    this.#closed = true;
    this.#closing.abort();
    return true;
  }

  /**
   * After shut(): resolves once every master is idle (what was sent is answered or timed out, and
   * the undos that failed attempts queued are answered too), or after the grace (twice nodeTimeout).
   * The deadline timer still runs meanwhile, so a silent master holds this up by at most its budget.
   */
  async drain(): Promise<void> {
    const until = performance.now() + this.#graceMs;
    while (!this.nodes.every((node) => node.idle) && performance.now() < until) {
      // What waits to be flushed goes within this turn of the event loop; calls out wake it as they leave.
      if (this.nodes.some((node) => node.flushing)) await new Promise(setImmediate);
      else await within(this.#stalls.nextLeave(), msUntil(until), true);
    }
  }

  /** After shut(): stops the deadline timer and the masters; closes what pipelock opened and, unless `keepClients`, the clients given. */
  async close(keepClients: boolean): Promise<void> {
    this.#deadlines.clear();
    const closing: Promise<unknown>[] = [];
    const graceMs = this.#graceMs;
    for (const node of this.nodes) {
      node.detach();
      // A silent master would answer a closing PING no sooner than what it already left unanswered.
      closing.push(node.transport.close(node.stalled ? 0 : graceMs, keepClients && !node.owned));
    }
    await Promise.allSettled(closing);
  }

  readonly #onNodeError = (node: Master, error: Error): void => {
    node.lastError = error;
    publishNodeError(node.index, node.name, error);
    this.report(error);
  };
}
