import type { Attempt } from './attempt.js';
import type { MasterClient } from '../clients.js';
import { Coalescer, type Batch, type Outlet } from './coalescer.js';
import type { Deadlines } from './deadlines.js';
import type { Flusher } from './flusher.js';
import { type MisconfigurationError, NodeUnavailableError, NoScriptingError } from '../errors.js';
import { nativeCommandOf, type Capabilities, type NativeCommand } from '../protocol/native.js';
import { settleReply } from './replies.js';
import { postRun, settleRun } from './native-run.js';
import { Capability, type CapabilityChange, type CommandsMode } from './capability.js';
import { errorKind, featureOf } from './master-errors.js';
import { ScriptReplay, type ReplayTarget } from './script-replay.js';
import { Leftovers } from './leftovers.js';
import { asError } from '../util/checks.js';
import { isRelease } from '../protocol/opcodes.js';
import type { Sink, Transport } from '../transport/transport.js';
import { Unanswered, type Stalls } from './unanswered.js';
import { nodeCallStart, publishNodeCall, publishNodeCallError } from './channels.js';

/** What every master of a set shares: the one deadline timer, the stall count, the one flush scheduler. */
export interface MastersShared {
  readonly deadlines: Deadlines;
  readonly stalls: Stalls;
  readonly flusher: Flusher;
}

/** Told about every master-level failure (the master set turns it into events and diagnostics). */
export type NodeErrorListener = (node: Master, error: Error) => void;

/** The settings a master runs with. */
export interface MasterOptions {
  readonly chunkSize: number;
  readonly coalesce: boolean;
  readonly commands: CommandsMode;
}

/**
 * One master (a Redlock member): its connection (through a Transport), its coalescer, and how its replies become
 * votes. Its unanswered calls and their deadlines live in `Unanswered`, NOSCRIPT recovery in `ScriptReplay`.
 */
export class Master implements Outlet, ReplayTarget, Sink<Batch> {
  readonly transport: Transport;
  /** The client as the caller gave it (or as pipelock opened it), for `Redlock.clients` and stats. */
  readonly client: MasterClient;
  /** The last failure seen on this master (for `Redlock.ready()` and health reports). */
  lastError: Error | undefined;
  /** Operations sent in calls not yet answered. */
  inflight = 0;
  readonly #coalescer: Coalescer;
  readonly #capability: Capability;
  readonly #unanswered: Unanswered;
  readonly #replay: ScriptReplay;
  readonly #onError: NodeErrorListener;
  readonly #unsubscribe: () => void;
  readonly #unsubscribeDrops: () => void;
  /** Whether the connection was ready once: before that, commands wait in the client's offline queue. */
  #everReady: boolean;
  /** Counts the connection's errors (a dropped socket is one): a batch answered on a later connection is late (Leftovers.late). */
  #connection = 0;
  /** The transport splits batches itself (a Redis Cluster member, src/transport/cluster/transport.ts): its calls can
   * be resent after a redirection, so a cleanup may overtake the acquisition it undoes; every reply is then checked
   * for acquisitions that succeeded too late (Leftovers.late). */
  readonly #routed: boolean;
  /** Undos of what this master granted too late, and releases it was not sent while stalled (src/engine/leftovers.ts). */
  readonly #leftovers: Leftovers;

  constructor(
    readonly index: number,
    transport: Transport,
    /** pipelock opened the connection (from a URL or seeds) and closes it. */
    readonly owned: boolean,
    settings: MasterOptions,
    onError: NodeErrorListener,
    shared: MastersShared,
    onCapability: (change: CapabilityChange) => void,
  ) {
    this.transport = transport;
    this.client = transport.client;
    this.#capability = new Capability(index, transport, onCapability, (error) => { this.report(error); });
    const posts = transport.post !== undefined;
    this.#coalescer = new Coalescer(this, shared.flusher, settings.chunkSize, settings.coalesce, settings.commands, posts);
    this.#leftovers = new Leftovers(index, transport, this.#coalescer);
    this.#unanswered = new Unanswered(index, shared.deadlines, shared.stalls);
    this.#replay = new ScriptReplay(this);
    this.#onError = onError;
    this.#everReady = transport.isReady;
    this.#routed = transport.sendBatch !== undefined;
    this.#unsubscribe = transport.onReady(this.#onReady);
    // Not on 'ready': @redis/client writes what it kept before it emits 'ready', and the replies
    // can come first. It emits 'error' before it fails the replies it awaited.
    this.#unsubscribeDrops = transport.onError(() => { this.#connection++; });
    if (transport.isReady) this.#preload();
  }

  get name(): string {
    return this.transport.name;
  }

  /** What this member accepts now: native commands and scripting (src/engine/capability.ts). */
  get capabilities(): Capabilities {
    return this.#capability.current;
  }

  /** Whether a probe has answered since pipelock connected to it. */
  get probed(): boolean {
    return this.#capability.known;
  }

  /** Set once its probe found a Redis Cluster node given as a standalone master. */
  get clusterNode(): MisconfigurationError | undefined { return this.#capability.clusterNode; }

  /** Resolves once the probe under way (if any) has answered. */
  probing(): Promise<void> { return this.#capability.settled(); }

  /** What it was sent went unanswered past its budget, and nothing since (src/engine/unanswered.ts). */
  get stalled(): boolean { return this.#unanswered.stalled; }

  detach(): void {
    this.#capability.stop();
    this.#unsubscribe();
    this.#unsubscribeDrops();
  }

  /** Nothing waits to be sent and every call sent was answered, failed or timed out (Redlock.quit drains to this). */
  get idle(): boolean {
    return this.#coalescer.empty && !this.#unanswered.waiting;
  }

  /** Operations wait to be sent: they go within this turn of the event loop (src/engine/flusher.ts). */
  get flushing(): boolean { return !this.#coalescer.empty; }

  enqueue(op: Attempt): void {
    const unanswered = this.#unanswered;
    if (unanswered.stalled) {
      // Not sent: its vote is missing at once, as a disconnected master's is.
      if (!unanswered.admits(op)) {
        op.settle(this.index, unanswered.stallError(this.name, this.#report));
        if (isRelease(op.opcode)) this.#leftovers.defer(op);
        return;
      }
      op.discount(this.index);
    }
    this.#coalescer.enqueue(op);
  }

  /** Deadline scan of this master's unanswered calls (see Unanswered.expire). */
  expire(now: number): number {
    return this.#unanswered.expire(now);
  }

  readonly #onReady = (): void => {
    this.#everReady = true;
    this.#unanswered.reconnected();
    this.#preload();
    this.#leftovers.sendDeferred();
    for (const op of this.#leftovers.takeAfterReady()) this.enqueue(op);
  };

  /** At every (re)connect: the member's commands and scripting (src/engine/capability.ts), and SCRIPT LOAD of every script. */
  #preload(): void {
    void this.#capability.probe();
  }

  /** The coalescer's flush. */
  send(batches: readonly Batch[]): void {
    // A master that was up and is now reconnecting answers nothing: fail its votes at once
    // rather than let the client queue them offline for the whole outage.
    if (this.#everReady && !this.transport.isReady) {
      const error = new NodeUnavailableError(this.name);
      this.report(error);
      for (const batch of batches) for (const op of batch.ops) op.settle(this.index, error);
      return;
    }
    const scripting = this.#capability.current.scripting;
    const clusterNode = this.#capability.clusterNode;
    // A lean connection writes this flush's calls at uncork(), not in a microtask per connection.
    this.transport.cork?.();
    for (const batch of batches) {
      // Sent nothing, failed here and named: anything to a cluster node given as a master, a script to a member without scripting.
      if (clusterNode !== undefined || (!batch.native && !scripting)) {
        this.#refuse(batch, clusterNode);
        continue;
      }
      batch.connection = this.#connection;
      this.#unanswered.add(batch);
      if (!this.#replay.hold(batch)) this.dispatch(batch);
    }
    this.transport.uncork?.();
  }

  #refuse(batch: Batch, clusterNode: Error | undefined): void {
    const cause = this.#capability.scriptingError;
    for (const op of batch.ops) op.settle(this.index, clusterNode ?? new NoScriptingError(this.name, featureOf(op.opcode, op.keys), cause));
  }

  dispatch(batch: Batch): void {
    this.inflight += batch.ops.length;
    const sent = nodeCallStart();
    const transport = this.transport;
    if (batch.commands !== undefined) postRun(transport, batch, this, sent);
    // A lone operation's words are made once for every master (src/engine/coalescer.ts); a script call of many is this master's.
    else if (sent === 0 && transport.post !== undefined) transport.post(batch.args, this, batch, batch.ops.length === 1);
    else void (transport.sendBatch === undefined ? transport.send(batch.args) : transport.sendBatch(batch))
      .then((reply) => { this.replied(batch, reply, sent); }, (error: unknown) => { this.failed(batch, error, sent); });
  }

  /** A call's failure, or (replied, below) its reply: the transport's Sink; a lean connection calls them with no promise per call. */
  failed(batch: Batch, error: unknown, sent = 0): void {
    this.inflight -= batch.ops.length;
    publishNodeCallError(this.index, this.name, sent, batch.ops.length, error);
    const failure = asError(error);
    // A key of another type is not this lock's: the scripts' pcall(GET) reads it so, and the native commands agree.
    if (batch.native && batch.commands === undefined && errorKind(failure) === 'wrongtype') this.#settle(batch, 0);
    else if (!this.#replay.recover(batch, failure) && !this.#fallBack(batch, failure)) {
      this.report(failure);
      this.fail(batch, failure);
    }
  }

  /**
   * A call refused for a capability the member lost: it loses it and the call is cut again and resent once, so no
   * operation is lost (see docs/decisions/0012, "master.ts").
   */
  #fallBack(batch: Batch, error: Error): boolean {
    const byScript = batch.replayed ? undefined : this.#again(batch.native ? nativeCommandOf(batch.args) : 'script', error);
    if (byScript === undefined) return false;
    // An answer in time ends a stall here as in #settle: what was kept for its end goes now.
    if (this.#unanswered.answered(batch)) this.#leftovers.sendDeferred();
    this.#resend(batch.ops, byScript);
    return true;
  }

  /** How what `command` was refused with `error` goes again: by script (true), as cut now (false), or not at all. */
  #again(command: NativeCommand | 'script' | undefined, error: Error): boolean | undefined {
    // SET NX, the one native command every server has, has nothing to fall back to.
    if (command === undefined) return undefined;
    if (command === 'SET IFEQ' && errorKind(error) === 'oom' && this.#capability.current.scripting) return true;
    return this.#capability.refused(command, error) ? false : undefined;
  }

  /** The call's operations cut again for what the member has now, and sent once more (and only once). */
  #resend(ops: readonly Attempt[], byScript: boolean): void {
    const again = this.#coalescer.cut(ops as Attempt[], byScript);
    for (const next of again) next.replayed = true;
    this.send(again);
  }

  /**
   * A NOSCRIPT replay's SCRIPT LOAD failed. Refused for scripting (an ACL change, or Valkey 9.1's Lua
   * engine unloaded, which also empties the script cache) the batch goes natively where it can, as a
   * refused call does; any other failure fails it.
   */
  replayFailed(batch: Batch, error: Error): void {
    if (!this.#capability.refused('script', error)) {
      this.fail(batch, error);
      return;
    }
    this.#unanswered.answered(batch);
    this.#resend(batch.ops, false);
  }

  fail(batch: Batch, error: Error): void {
    this.#unanswered.failed(batch);
    for (const op of batch.ops) op.settle(this.index, error);
  }

  report(error: Error): void {
    this.#onError(this, error);
  }

  replied(batch: Batch, reply: unknown, sent = 0): void {
    this.inflight -= batch.ops.length;
    publishNodeCall(this.index, this.name, sent, batch.ops.length);
    this.#settle(batch, reply);
  }

  #settle(batch: Batch, reply: unknown): void {
    // Read before the answer can end the stall: the batch's other operations may have timed out.
    const stalled = this.#unanswered.stalled;
    if (this.#unanswered.answered(batch)) this.#leftovers.sendDeferred();
    if (stalled || batch.connection !== this.#connection || this.#routed || batch.replayed) this.#leftovers.late(batch, reply);
    if (batch.commands === undefined) settleReply(batch, reply, this.index, this.name, this.#report);
    else settleRun(batch, reply, this.index, this.name, this.#report, this.#runFailed);
  }

  readonly #report = (error: Error): void => { this.report(error); };

  /** A run's command answered with an error: its operation is judged as a call of its own would be (see failed). */
  readonly #runFailed = (batch: Batch, op: Attempt, at: number, error: Error): void => {
    const wrongType = errorKind(error) === 'wrongtype';
    const byScript = wrongType || batch.replayed ? undefined : this.#again(nativeCommandOf(batch.commands![at]!), error);
    if (wrongType) op.settle(this.index, 0);
    else if (byScript !== undefined) this.#resend([op], byScript);
    else {
      this.report(error);
      op.settle(this.index, error);
    }
  };
}
