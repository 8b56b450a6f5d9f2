import { describe } from './util/describe.js';
import type { MasterClient } from './clients.js';

/** One master's part in an operation, kept for every error that a quorum decided. */
export interface NodeOutcome {
  /** Index of the master in the `clients` given to `Redlock`. */
  readonly node: number;
  /** `host:port` (or the URL) of the master, for messages and logs. */
  readonly name: string;
  /** `for`: applied; `against`: held by another token (extend/release: no longer ours); `error`: an error; `timeout`: no answer in time. */
  readonly vote: 'for' | 'against' | 'error' | 'timeout';
  /** The master's error, for `error` and `timeout` votes. */
  readonly error?: Error;
}

/** node-redlock v5's summary of one attempt, kept for drop-in compatibility. */
export interface ExecutionStats {
  /** How many masters the attempt asked. */
  readonly membershipSize: number;
  /** How many had to agree: floor(N/2)+1. */
  readonly quorumSize: number;
  /** The clients of the masters that applied the operation. */
  readonly votesFor: Set<MasterClient>;
  /** The clients of the masters that refused or failed, with why. */
  readonly votesAgainst: Map<MasterClient, Error>;
}

/** The root of every error pipelock throws: a stable `code` and the underlying `cause`. */
export class PipelockError extends Error {
  /** A stable `ERR_PIPELOCK_*` code: match on it (or on the class), never on the message. */
  readonly code: string;
  constructor(message: string, code: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** An argument broke a rule; `argument` names it and `rule` states what it must be. */
export class InvalidArgumentError extends PipelockError {
  /** The argument or setting, as spelled in the call (`settings.retryCount`, `resources[1]`). */
  readonly argument: string;
  /** What its value must be. */
  readonly rule: string;
  constructor(argument: string, rule: string, received: unknown) {
    super(`${argument} ${rule}, got ${describe(received)}`, 'ERR_PIPELOCK_INVALID_ARGUMENT');
    this.argument = argument;
    this.rule = rule;
  }
}

/** The Redlock instance was closed by `quit()`. */
export class RedlockClosedError extends PipelockError {
  constructor() {
    super('this Redlock instance was closed by quit()', 'ERR_PIPELOCK_CLOSED');
  }
}

/** An operation did not reach a quorum: node-redlock's class, the parent of every quorum failure, so `instanceof` keeps working. */
export class ExecutionError extends PipelockError {
  /** Every master's outcome in the last attempt (empty when no attempt was sent). */
  readonly nodes: readonly NodeOutcome[];
  #attempts: ExecutionAttempts | (() => ExecutionAttempts);
  constructor(
    message: string,
    attempts: ExecutionAttempts | (() => ExecutionAttempts) = [],
    nodes: readonly NodeOutcome[] = [],
    code = 'ERR_PIPELOCK_EXECUTION',
    options?: { cause?: unknown },
  ) {
    super(message, code, options);
    this.#attempts = attempts;
    this.nodes = nodes;
  }

  /**
   * One entry per attempt, each resolved once its masters all answered or timed out. Built on first read: most refusals on a hot key
   * are never inspected, and their stats cost more than the refused attempt.
   */
  get attempts(): ExecutionAttempts {
    if (typeof this.#attempts === 'function') this.#attempts = this.#attempts();
    return this.#attempts;
  }
}

/** node-redlock's `attempts`: one promise per attempt, resolving with that attempt's stats once every master answered or timed out. */
export type ExecutionAttempts = ReadonlyArray<Promise<ExecutionStats>>;

/** node-redlock v5's name for what release() resolves with; pipelock's ReleaseResult is one. */
export interface ExecutionResult {
  /** One promise per attempt, resolving with that attempt's stats. */
  readonly attempts: ExecutionAttempts;
}

/** node-redlock v5's per-client vote, exported so v5 code compiles; pipelock reports each master's part as a NodeOutcome. */
export type ClientExecutionResult = ClientVotedFor | ClientVotedAgainst;
/** A client that applied the operation (node-redlock v5's shape). */
export interface ClientVotedFor {
  /** The client that voted. */
  readonly client: MasterClient;
  /** Applied. */
  readonly vote: 'for';
  /** The script's reply. */
  readonly value: number;
}

/** A client that refused or failed (node-redlock v5's shape). */
export interface ClientVotedAgainst {
  /** The client that voted. */
  readonly client: MasterClient;
  /** Refused or failed. */
  readonly vote: 'against';
  /** Why. */
  readonly error: Error;
}

/** The resource is held by another token on enough masters that no quorum was possible. */
export class ResourceLockedError extends ExecutionError {
  constructor(message: string, attempts?: ExecutionAttempts | (() => ExecutionAttempts), nodes?: readonly NodeOutcome[]) {
    super(message, attempts, nodes, 'ERR_PIPELOCK_RESOURCE_LOCKED');
  }
}

/**
 * Too many masters failed or timed out for a quorum; `nodes` says which and why. From release():
 * the keys may still be held where a master failed or timed out (unknown, not refused); release()
 * again is the cheap follow-up, owner-checked and safe to repeat: it resolves with `expired` true
 * once a quorum says they are gone.
 */
export class QuorumUnreachableError extends ExecutionError {
  constructor(message: string, attempts?: ExecutionAttempts | (() => ExecutionAttempts), nodes?: readonly NodeOutcome[]) {
    super(message, attempts, nodes, 'ERR_PIPELOCK_QUORUM_UNREACHABLE');
  }
}

/** The lock's validity ran out before the operation could be done: an extension, or an acquisition whose quorum answered too late. */
export class LockExpiredError extends ExecutionError {
  constructor(message = 'Cannot extend an already-expired lock.', attempts?: ExecutionAttempts | (() => ExecutionAttempts),
    nodes?: readonly NodeOutcome[]) {
    super(message, attempts, nodes, 'ERR_PIPELOCK_LOCK_EXPIRED');
  }
}

/** A majority of masters no longer hold the lock under its token: it was deleted, expired or taken over. */
export class LockLostError extends ExecutionError {
  constructor(message: string, attempts?: ExecutionAttempts | (() => ExecutionAttempts), nodes?: readonly NodeOutcome[],
    options?: { cause?: unknown; code?: string }) {
    super(message, attempts, nodes, options?.code ?? 'ERR_PIPELOCK_LOCK_LOST', options);
  }
}

/** Renewed by the worker (`renewal: 'worker'`) and let go: the event loop did not turn within `heartbeatBound`, so its keys expired. */
export class EventLoopBlockedError extends LockLostError {
  /** The setting heartbeatBound, in ms, that the blocked stretch exceeded. */
  readonly boundMs: number;
  constructor(resources: string, boundMs: number) {
    super(`${resources}: the event loop was blocked for longer than heartbeatBound (${boundMs} ms), so the renewal worker stopped renewing `
      + `it and it expired`, [], [], { code: 'ERR_PIPELOCK_LOOP_BLOCKED' });
    this.boundMs = boundMs;
  }
}

/** Taken away by forceRelease() (`pipelock release --force`): keys deleted without the owner check. */
export class LockRevokedError extends LockLostError {
  /** The reason given to forceRelease(). */
  readonly reason: string;
  constructor(resources: string, reason: string) {
    super(`${resources}: revoked by a force-release: ${reason}`, [], [], { code: 'ERR_PIPELOCK_LOCK_REVOKED' });
    this.reason = reason;
  }
}

/** The lock was extended `maxExtensions` times already (a bounded number of extensions keeps the lock live for others). */
export class ExtensionLimitError extends ExecutionError {
  constructor(limit: number) {
    super(`the lock was already extended ${limit} times (maxExtensions)`, [], [], 'ERR_PIPELOCK_EXTENSION_LIMIT');
  }
}

/** The caller's AbortSignal fired; `cause` is the signal's reason. */
export class LockAbortedError extends ExecutionError {
  constructor(reason: unknown, attempts?: ExecutionAttempts | (() => ExecutionAttempts)) {
    super('the operation was aborted by its signal', attempts, [], 'ERR_PIPELOCK_ABORTED', { cause: reason });
  }
}

/** The client is the bottleneck: this operation's turn would come after its deadline, so nothing was sent. Back off, or issue less. */
export class OverloadedError extends ExecutionError {
  /** Keys of acquisitions queued in this client's admission window ahead of this one (one window for all masters). */
  readonly queueDepth: number;
  /** The estimated wait for this acquisition's turn in ms; for one whose deadline passed while waiting, how far past it. */
  readonly waitMs: number;
  /** What the caller's deadline left, in ms. */
  readonly budgetMs: number;
  constructor(queueDepth: number, waitMs: number, budgetMs: number) {
    super(
      `the client is overloaded: ${queueDepth} key(s) of acquisitions queued ahead of this one, its turn would come in about `
        + `${Math.round(waitMs)} ms ` +
        `but its deadline allows ${Math.round(budgetMs)} ms; nothing was sent`,
      [], [], 'ERR_PIPELOCK_OVERLOADED',
    );
    this.queueDepth = queueDepth;
    this.waitMs = waitMs;
    this.budgetMs = budgetMs;
  }
}

/** A term's signal aborted because its leader resigned (Term.resign(), or its scope ended under `await using`). */
export class ResignedError extends PipelockError {
  constructor(election: string, term: number) {
    super(`resigned the leadership of ${election} (term ${term})`, 'ERR_PIPELOCK_RESIGNED');
  }
}

/**
 * A reentrant lock was used against its rules: acquired outside a scope, over resources its context holds
 * in part, released before the holders nested inside it, or asked by a nested holder what only the outermost may do.
 */
export class ReentrancyError extends PipelockError {
  /** The resources of the lock it was used on. */
  readonly resources: readonly string[];
  constructor(message: string, resources: readonly string[]) {
    super(message, 'ERR_PIPELOCK_REENTRANCY');
    this.resources = resources;
  }
}

/**
 * Masters refused the operation in a way no retry can heal (NOPERM, WRONGTYPE, a missing command, a cluster node
 * given as a standalone master) on enough masters that no quorum is possible: failed at once. `fix` says what to change.
 */
export class MisconfigurationError extends ExecutionError {
  /** noperm, noscripting, wrongtype, unknown-command, moved or auth (src/engine/master-errors.ts). */
  readonly reason: string;
  /** The first master that answered so (`host:port`). */
  readonly master: string;
  /** The keys the operation needed there (the client's key prefix included). */
  readonly keys: readonly string[];
  /** What to change: the command, permission or setting. */
  readonly fix: string;
  constructor(message: string,
    details: { readonly reason: string; readonly master: string; readonly keys: readonly string[]; readonly fix: string },
    attempts?: ExecutionAttempts | (() => ExecutionAttempts), nodes?: readonly NodeOutcome[]) {
    super(`${message}. Fix: ${details.fix}`, attempts, nodes, 'ERR_PIPELOCK_MISCONFIGURED');
    this.reason = details.reason;
    this.master = details.master;
    this.keys = details.keys;
    this.fix = details.fix;
  }
}

/** A master's answer is missing because its connection is down or reconnecting. */
export class NodeUnavailableError extends PipelockError {
  constructor(name: string) {
    super(`master ${name} is not connected`, 'ERR_PIPELOCK_NODE_UNAVAILABLE');
  }
}

/**
 * A master runs no scripts for this user (an ACL denying the scripting category, a proxy, no Lua engine) and the operation
 * needs one there: its vote, nothing sent. Leaving no quorum, the call fails with MisconfigurationError ('noscripting').
 */
export class NoScriptingError extends PipelockError {
  /** What needed a script ('a lock on several resources', 'fencing tokens', …). */
  readonly feature: string;
  constructor(name: string, feature: string, cause: Error | undefined) {
    super(`master ${name} runs no scripts for this user${cause === undefined ? '' : ` (${cause.message})`}, and ${feature} needs one`,
      'ERR_PIPELOCK_NO_SCRIPTING', cause === undefined ? undefined : { cause });
    this.feature = feature;
  }
}

/** A master did not answer within the per-node time budget of the attempt. */
export class NodeTimeoutError extends PipelockError {
  constructor(name: string, budget: number) {
    super(`master ${name} did not answer within ${budget} ms (nodeTimeout)`, 'ERR_PIPELOCK_NODE_TIMEOUT');
  }
}

/** A master answered something the protocol does not allow (a bug or a foreign script under our SHA). */
export class UnexpectedReplyError extends PipelockError {
  constructor(name: string, reply: unknown) {
    super(`master ${name} sent an unexpected reply: ${describe(reply)}`, 'ERR_PIPELOCK_UNEXPECTED_REPLY');
  }
}

/**
 * A master is stalled (a call went unanswered past nodeTimeout, none answered in time since): nothing is sent to it
 * but one probe at a time, whose answer in time ends the stall, so nothing waits in this client's memory meanwhile.
 */
export class NodeStalledError extends PipelockError {
  /** The stalled master (`host:port`). */
  readonly master: string;
  constructor(master: string) {
    super(`master ${master} is stalled: a call to it went unanswered past its time budget (nodeTimeout), so nothing is sent to it but one `
      + `probe until it answers in time`, 'ERR_PIPELOCK_NODE_STALLED');
    this.master = master;
  }
}
