import { isScriptingDenied, nativeByVersion, PROBES, probeVerdict, SCRIPTS_ONLY, type Capabilities,
  type DeleteCommand, type NativeCommand } from '../protocol/native.js';
import { later, msUntil, within } from '../util/time.js';

export type { CommandsMode } from '../protocol/native.js';
import type { Transport } from '../transport/transport.js';
import { asError } from '../util/checks.js';
import { loadScripts } from './script-replay.js';
import { MisconfigurationError } from '../errors.js';
import { CLUSTER_ENABLED, explainMoved } from './master-errors.js';


/** A probe's answer, or why there is none. */
type Outcome = { reply?: unknown; error?: Error };
type Verdict = 'yes' | 'no' | 'unknown';

/** The first wait before asking a member again what it has, and the longest (doubling between). */
const kFirstReprobeMs = 1000;
const kLastReprobeMs = 60_000;

/** What changed on a member, and why: its probe answered, or a native command failed and the member falls back to scripts. */
export interface CapabilityChange {
  readonly node: number;
  readonly name: string;
  readonly capabilities: Capabilities;
  readonly previous: Capabilities;
  readonly reason: 'probe' | 'fallback';
  /** The failure that caused a fallback. */
  readonly error?: Error;
}

/**
 * One member's capabilities, probed with commands that change nothing at every ready and reconnect (a failover can
 * put an older server behind the address); a native command or script call that fails later is taken away at once.
 */
export class Capability {
  #current: Capabilities = SCRIPTS_ONLY;
  /** Some probe answered on this member (so `current` is what it said, not the assumption). */
  #known = false;
  /** Counts connections: a probe answered on an earlier one says nothing about this one. */
  #epoch = 0;
  #probing: Promise<void> | undefined;
  #cancelReprobe: (() => void) | undefined;
  #backoff = kFirstReprobeMs;
  #stopped = false;
  /** What the member had before a refused call took something away: asked again until a probe gives it back. */
  #beforeFallback: Capabilities | undefined;
  /** The refusal that said this member runs no scripts for this user, for the errors that name it. */
  scriptingError: Error | undefined;
  /**
   * Set when the member, given as a standalone master, said `cluster_enabled:1` to INFO: a Redis
   * Cluster node answers MOVED for the keys of every other shard, so nothing is sent to it, and every
   * operation there fails with this (reported once, when it was found).
   */
  clusterNode: MisconfigurationError | undefined;

  constructor(
    readonly node: number,
    readonly transport: Transport,
    readonly onChange: (change: CapabilityChange) => void,
    readonly report: (error: Error) => void,
  ) {}

  get current(): Capabilities {
    return this.#current;
  }

  get known(): boolean {
    return this.#known;
  }

  /** The probe of the connection now ready (or the one still running for it). */
  probe(): Promise<void> {
    const epoch = ++this.#epoch;
    const probing = this.#probe(epoch).finally(() => {
      if (this.#probing === probing) this.#probing = undefined;
    });
    this.#probing = probing;
    return probing;
  }

  /** Resolves once the probe under way, if any, has answered. */
  settled(): Promise<void> {
    return this.#probing ?? Promise.resolve();
  }

  async #probe(epoch: number): Promise<void> {
    const transport = this.transport;
    const ask = (args: readonly string[]): Promise<Outcome> =>
      transport.send(args).then((reply) => ({ reply }), (error: unknown) => ({ error: asError(error) }));
    // A cluster member's transport routes by slot itself; a standalone one must not be a cluster node.
    const standalone = transport.sendBatch === undefined;
    // Probed whatever the mode: a member that runs no scripts takes native commands anyway, and
    // Redlock.capabilities() tells what each member has.
    const [setIfEq, delIfEq, delEx, msetex, scripts, cluster, server] = await Promise.all([
      ask(PROBES.setIfEq),
      ask(PROBES.DELIFEQ),
      ask(PROBES.DELEX),
      ask(PROBES.MSETEX),
      loadScripts(transport).then(() => undefined, (error: unknown) => asError(error)),
      standalone ? ask(['INFO', 'cluster']) : undefined,
      standalone ? ask(['INFO', 'server']) : undefined,
    ]);
    if (epoch !== this.#epoch) return;
    if (this.clusterNode === undefined && typeof cluster?.reply === 'string' && /^cluster_enabled:1/m.test(cluster.reply)) {
      this.clusterNode = clusterNodeError(transport.name);
      this.report(this.clusterNode);
    }
    const byVersion = typeof server?.reply === 'string' ? nativeByVersion(server.reply) : undefined;
    // Refused for the probe's key (an ACL key pattern): the server's version says what it has.
    const judge = (outcome: Outcome, versionSays: boolean): 'yes' | 'no' | 'unknown' => {
      const verdict = probeVerdict(outcome);
      return verdict !== 'key' ? verdict : byVersion === undefined ? 'unknown' : versionSays ? 'yes' : 'no';
    };
    this.#apply(
      judge(setIfEq, byVersion?.setIfEq === true),
      judge(delIfEq, byVersion?.deleteIfEq === 'DELIFEQ'),
      judge(delEx, byVersion?.deleteIfEq === 'DELEX'),
      judge(msetex, byVersion?.msetex === true),
      scripts,
    );
  }

  /** A probe's verdicts as the member's capabilities; what it could not tell keeps its last answer and is asked again later. */
  #apply(set: Verdict, del: Verdict, dex: Verdict, mset: Verdict, scripts: Error | undefined): void {
    const previous = this.#current;
    let scripting = previous.scripting;
    const scriptsTold = scripts === undefined || isScriptingDenied(scripts);
    if (scripts === undefined) scripting = true;
    else if (scriptsTold) {
      scripting = false;
      this.scriptingError = scripts;
    }
    else this.report(scripts);
    const deleteIfEq: DeleteCommand | undefined = del === 'yes' ? 'DELIFEQ' : dex === 'yes' ? 'DELEX'
      : del === 'unknown' || dex === 'unknown' ? previous.deleteIfEq : undefined;
    const next: Capabilities = { setIfEq: set === 'unknown' ? previous.setIfEq : set === 'yes', deleteIfEq, scripting,
      msetex: mset === 'unknown' ? previous.msetex : mset === 'yes' };
    const verdicts = [set, del, dex, mset];
    if (scriptsTold || verdicts.some((v) => v !== 'unknown')) this.#known = true;
    const before = this.#beforeFallback;
    if (before !== undefined && covers(next, before)) this.#beforeFallback = undefined;
    if (!scriptsTold || verdicts.includes('unknown') || this.#beforeFallback !== undefined) this.#askAgain();
    else this.#backoff = kFirstReprobeMs;
    this.#set(next, 'probe');
  }

  /** Asks again later on the same connection (a probe that could not tell, or a lost capability), doubling the wait. */
  #askAgain(): void {
    if (this.#stopped || this.#cancelReprobe !== undefined) return;
    const epoch = this.#epoch;
    this.#cancelReprobe = later(this.#backoff, () => {
      this.#cancelReprobe = undefined;
      if (epoch === this.#epoch && this.transport.isReady) void this.probe();
    });
    this.#backoff = Math.min(kLastReprobeMs, this.#backoff * 2);
  }

  /** No more probes (the Redlock quits). */
  stop(): void {
    this.#stopped = true;
    this.#cancelReprobe?.();
    this.#cancelReprobe = undefined;
  }

  /** Whether a call's `error` says the member lacks its native `command` or scripting; if so, it loses it (a 'fallback'). */
  refused(command: NativeCommand | 'script', error: Error): boolean {
    if (command !== 'script') {
      if (probeVerdict({ error }) !== 'no') return false;
      this.#lost(command, error);
      return true;
    }
    if (!isScriptingDenied(error)) return false;
    this.#scriptingDenied(error);
    return true;
  }

  /** A native command failed with an error that says the member lacks it now: scripts from here on. */
  #lost(command: NativeCommand, error: Error): void {
    const current = this.#current;
    const has = command === 'SET IFEQ' ? current.setIfEq : command === 'MSETEX' ? current.msetex : current.deleteIfEq === command;
    if (!has) return;
    this.#beforeFallback ??= current;
    this.#set(command === 'SET IFEQ' ? { ...current, setIfEq: false } : command === 'MSETEX' ? { ...current, msetex: false }
      : { ...current, deleteIfEq: undefined }, 'fallback', error);
    this.#askAgain();
  }

  /** A script call was refused for scripting (an ACL change): native commands, where the member has them, from here on. */
  #scriptingDenied(error: Error): void {
    if (!this.#current.scripting) return;
    this.scriptingError = error;
    this.#beforeFallback ??= this.#current;
    this.#set({ ...this.#current, scripting: false }, 'fallback', error);
    this.#askAgain();
  }

  #set(next: Capabilities, reason: CapabilityChange['reason'], error?: Error): void {
    const previous = this.#current;
    if (previous.setIfEq === next.setIfEq && previous.deleteIfEq === next.deleteIfEq && previous.scripting === next.scripting
      && previous.msetex === next.msetex) return;
    this.#current = Object.freeze(next);
    this.onChange({ node: this.node, name: this.transport.name, capabilities: this.#current, previous, reason,
      ...(error === undefined ? {} : { error }) });
  }
}

/** Whether `next` has everything `before` had. */
function covers(next: Capabilities, before: Capabilities): boolean {
  return (next.setIfEq || !before.setIfEq) && (next.scripting || !before.scripting)
    && (next.deleteIfEq !== undefined || before.deleteIfEq === undefined) && (next.msetex || !before.msetex);
}

/** The error that names a Redis Cluster node given as a standalone master, and the fix. */
export function clusterNodeError(master: string): MisconfigurationError {
  const { message, fix } = explainMoved(master, CLUSTER_ENABLED);
  return new MisconfigurationError(message, { reason: 'moved', master, keys: [], fix });
}

/** What `capable` reads of a master (src/engine/master.ts fits). */
export interface ProbedMember {
  readonly name: string;
  readonly clusterNode: MisconfigurationError | undefined;
  readonly transport: { readonly isReady: boolean };
  readonly probed: boolean;
  readonly capabilities: Capabilities;
  probing(): Promise<void>;
}

/** A member on which a single-key lock can be taken, extended and released: by script, or natively. */
function lockable(caps: Capabilities): boolean {
  return caps.scripting || (caps.setIfEq && caps.deleteIfEq !== undefined);
}

/**
 * Once the ready masters' probes have answered (or `deadline` came): fails with
 * MisconfigurationError when so many members can neither run scripts nor compare-and-set/delete
 * natively that no quorum can extend or release a lock.
 */
export async function capable(nodes: readonly ProbedMember[], quorum: number, deadline: number): Promise<void> {
  const ready = nodes.filter((node) => node.transport.isReady);
  await within(Promise.all(ready.map((node) => node.probing())), msUntil(deadline), true);
  const misplaced = nodes.filter((node) => node.clusterNode !== undefined);
  if (misplaced.length > nodes.length - quorum) throw misplaced[0]!.clusterNode!;
  const stuck = nodes.filter((node) => node.probed && !lockable(node.capabilities));
  if (stuck.length <= nodes.length - quorum) return;
  const first = stuck[0]!;
  const others = stuck.length > 1
    ? ` (and ${stuck.length - 1} other master${stuck.length > 2 ? 's' : ''}: ${stuck.slice(1).map((node) => node.name).join(', ')})` : '';
  const cause = first.capabilities.scripting ? '' : ' runs no scripts for this user and';
  throw new MisconfigurationError(
    `master ${first.name}${others}${cause} has neither SET … IFEQ nor DELIFEQ/DELEX, so locks taken there could be neither extended nor `
      + `released owner-checked, and ${stuck.length} of ${nodes.length} masters leave no quorum`,
    { reason: 'noscripting', master: first.name, keys: [],
      fix: 'grant scripting to the user (ACL SETUSER <user> +@scripting, or +evalsha +script|load), or run a server with the native '
        + 'commands (Valkey 9.0+, Redis 8.4+)' },
  );
}
