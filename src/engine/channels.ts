import { channel, tracingChannel, type TracingChannel } from 'node:diagnostics_channel';
import type { CapabilityChange } from './capability.js';

/**
 * pipelock's diagnostics_channel events, every channel declared here: each publisher checks `hasSubscribers` first,
 * so listening to nothing costs one property read. Messages carry the caller's objects by reference: read-only.
 */

/** Published for every master-level failure: `{ node, name, error }`. Costs nothing without subscribers. */
export const NODE_ERROR_CHANNEL = 'pipelock:node-error';
/** Published when an auto-extended lock is lost: `{ resources, error }`. */
export const LOCK_LOST_CHANNEL = 'pipelock:lock-lost';
/** An acquire lost an attempt and waits to retry: `{ resources, attempt }` (the attempt that was lost, from 1). */
export const ACQUIRE_RETRY_CHANNEL = 'pipelock:acquire:retry';
/** One script call to a master was answered or failed: `{ node, name, durationMs, operations, error? }`. */
export const NODE_CALL_CHANNEL = 'pipelock:node-call';

/** A member's capabilities changed (probe at connect, or a native command failed): a CapabilityChange. */
export const CAPABILITY_CHANNEL = 'pipelock:capability';

/** TracingChannel `tracing:pipelock:acquire:*`: context `OperationContext`, `result` the Lock or `error` the typed error. */
export const ACQUIRE_CHANNEL = 'pipelock:acquire';
/** TracingChannel of `extend`: context `OperationContext` with `lock` the lock being extended; `result` the extended Lock. */
export const EXTEND_CHANNEL = 'pipelock:extend';
/** TracingChannel of `release`: context `OperationContext` with `lock`; `result` the ReleaseResult. */
export const RELEASE_CHANNEL = 'pipelock:release';
/** One renewal of an auto-extended lock was decided: `{ lock, renewed }`; a failed renewal is retried until the lock is lost. */
export const RENEWAL_CHANNEL = 'pipelock:renewal';

/** A `pipelock:renewal` message: one renewal of an auto-extended lock, `renewed` or not (a failed one retried until lost). */
export interface RenewalMessage<L = unknown> {
  /** The auto-extended lock. */
  readonly lock: L;
  /** Whether a quorum renewed it. */
  readonly renewed: boolean;
}

/**
 * The context object of the acquire, extend and release TracingChannels. `start` is
 * performance.now() when the call began, so a listener to `asyncEnd` alone can time it.
 * `result` and `error` are set by TracingChannel before `asyncEnd` / `error` are published.
 */
export interface OperationContext<L = unknown, R = unknown> {
  /** Which operation the span is. */
  readonly operation: 'acquire' | 'extend' | 'release';
  /** The lock's resources. */
  readonly resources: readonly string[];
  /** The requested duration in ms (acquire, extend); 0 for release. */
  readonly duration: number;
  /** The lock operated on (extend, release). */
  readonly lock?: L;
  /** When the call began, `performance.now()` ms. */
  readonly start: number;
  /** What the call resolved with: the Lock (acquire, extend) or the ReleaseResult. */
  result?: L | R;
  /** What the call rejected with. */
  error?: unknown;
}

/** A `pipelock:node-error` message: one master's failure. */
export interface NodeErrorMessage {
  /** Index of the master in the `clients` given to `Redlock`. */
  readonly node: number;
  /** `host:port` (or the URL) of the master. */
  readonly name: string;
  /** What failed. */
  readonly error: Error;
}
/** A `pipelock:lock-lost` message: an auto-extended lock was lost. */
export interface LockLostMessage {
  /** The lost lock's resources. */
  readonly resources: readonly string[];
  /** Why it is lost (a LockLostError, or the error that ended its renewals). */
  readonly error: Error;
}
/** A `pipelock:acquire:retry` message: an attempt was lost and the acquire waits to retry. */
export interface AcquireRetryMessage {
  /** The resources being acquired. */
  readonly resources: readonly string[];
  /** The attempt that was lost, from 1. */
  readonly attempt: number;
}
/** A `pipelock:node-call` message: one coalesced call to a master was answered or failed. */
export interface NodeCallMessage {
  /** Index of the master in the `clients` given to `Redlock`. */
  readonly node: number;
  /** `host:port` (or the URL) of the master. */
  readonly name: string;
  /** From the call's dispatch to its reply, on the monotonic clock. */
  readonly durationMs: number;
  /** How many lock operations the call carried (the coalescer folds many into one). */
  readonly operations: number;
  /** The failure, when the call failed. */
  readonly error?: Error;
}

const nodeError = channel(NODE_ERROR_CHANNEL);
const lockLost = channel(LOCK_LOST_CHANNEL);
const acquireRetry = channel(ACQUIRE_RETRY_CHANNEL);
const nodeCall = channel(NODE_CALL_CHANNEL);
const capability = channel(CAPABILITY_CHANNEL);
const renewal = channel(RENEWAL_CHANNEL);
const traces: Readonly<Record<OperationContext['operation'], TracingChannel<unknown, OperationContext>>> = {
  acquire: tracingChannel(ACQUIRE_CHANNEL),
  extend: tracingChannel(EXTEND_CHANNEL),
  release: tracingChannel(RELEASE_CHANNEL),
};

/** Published at each probe that changes what a member accepts, and at each fallback. */
export function publishCapability(change: CapabilityChange): void {
  if (capability.hasSubscribers) capability.publish(change);
}

export function publishNodeError(node: number, name: string, error: Error): void {
  if (nodeError.hasSubscribers) nodeError.publish({ node, name, error } satisfies NodeErrorMessage);
}

export function publishLockLost(resources: readonly string[], error: Error): void {
  if (lockLost.hasSubscribers) lockLost.publish({ resources, error } satisfies LockLostMessage);
}

export function publishAcquireRetry(resources: readonly string[], attempt: number): void {
  if (acquireRetry.hasSubscribers) acquireRetry.publish({ resources, attempt } satisfies AcquireRetryMessage);
}

/** performance.now() when someone listens to master calls, else 0 (and `publishNodeCall` then does nothing). */
export function nodeCallStart(): number {
  return nodeCall.hasSubscribers ? performance.now() : 0;
}

export function publishNodeCall(node: number, name: string, start: number, operations: number): void {
  if (start !== 0 && nodeCall.hasSubscribers)
    nodeCall.publish({ node, name, durationMs: performance.now() - start, operations } satisfies NodeCallMessage);
}

export function publishNodeCallError(node: number, name: string, start: number, operations: number, error: unknown): void {
  if (start === 0 || !nodeCall.hasSubscribers) return;
  const cause = error instanceof Error ? error : new Error(String(error));
  nodeCall.publish({ node, name, durationMs: performance.now() - start, operations, error: cause } satisfies NodeCallMessage);
}

export function publishRenewal(lock: unknown, renewed: boolean): void {
  if (renewal.hasSubscribers) renewal.publish({ lock, renewed } satisfies RenewalMessage);
}

/*
 * Tracing an operation: `…Span()` is undefined when nobody listens to its TracingChannel, and the
 * caller then makes the plain call (no context, no closure, no extra promise); else the caller
 * makes the same call inside `traced(span, () => …)`. The traced call is written at the call site.
 */

/** The context of an acquire's span, or undefined when nobody listens. */
export function acquireSpan(resources: readonly string[], duration: number): OperationContext | undefined {
  return traces.acquire.hasSubscribers ? { operation: 'acquire', resources, duration, start: performance.now() } : undefined;
}

/** The context of an extend's span (`lock` as the caller passed it), or undefined when nobody listens. */
export function extendSpan(lock: unknown, duration: number): OperationContext | undefined {
  return traces.extend.hasSubscribers
    ? { operation: 'extend', resources: resourcesOf(lock), duration, lock, start: performance.now() } : undefined;
}

/** The context of a release's span (`lock` as the caller passed it), or undefined when nobody listens. */
export function releaseSpan(lock: unknown): OperationContext | undefined {
  return traces.release.hasSubscribers
    ? { operation: 'release', resources: resourcesOf(lock), duration: 0, lock, start: performance.now() } : undefined;
}

/** Runs `call` under `span`'s TracingChannel: start, end, and asyncEnd (or error) with its result. */
export function traced<T>(span: OperationContext, call: () => Promise<T>): Promise<T> {
  return traces[span.operation].tracePromise(call, span);
}

/** A caller may pass anything as the lock (the method rejects it with a typed error); the context must not throw first. */
function resourcesOf(lock: unknown): readonly string[] {
  const resources: unknown = (lock as { resources?: unknown } | null | undefined)?.resources;
  return Array.isArray(resources) ? resources as readonly string[] : [];
}
