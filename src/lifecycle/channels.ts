import { channel, tracingChannel, type TracingChannel } from 'node:diagnostics_channel';
import type { Lock } from './lock.js';
import type { ReleaseResult } from './release-result.js';

/*
 * The lock lifecycle half of pipelock's diagnostics_channel events (operations and renewals), apart
 * from diagnostics.ts's master-level ones so that the master set, which publishes those, does not
 * depend on the Lock and ReleaseResult types these messages carry. Same rules: every publisher checks
 * `hasSubscribers` first and builds nothing otherwise.
 */

/**
 * TracingChannel of `acquire` (channels `tracing:pipelock:acquire:start`, `…:asyncEnd`, `…:error`):
 * context `OperationContext`; on success `result` is the Lock, on failure `error` the typed error.
 */
export const ACQUIRE_CHANNEL = 'pipelock:acquire';
/** TracingChannel of `extend`: context `OperationContext` with `lock` the lock being extended; `result` the extended Lock. */
export const EXTEND_CHANNEL = 'pipelock:extend';
/** TracingChannel of `release`: context `OperationContext` with `lock`; `result` the ReleaseResult. */
export const RELEASE_CHANNEL = 'pipelock:release';
/** One renewal of an auto-extended lock was decided: `{ lock, renewed }`; a failed renewal is retried until the lock is lost. */
export const RENEWAL_CHANNEL = 'pipelock:renewal';

/** A `pipelock:renewal` message: one renewal of an auto-extended lock, `renewed` or not (a failed one is retried until the lock is lost). */
export interface RenewalMessage {
  /** The auto-extended lock. */
  readonly lock: Lock;
  /** Whether a quorum renewed it. */
  readonly renewed: boolean;
}

/**
 * The context object of the acquire, extend and release TracingChannels. `start` is
 * performance.now() when the call began, so a listener to `asyncEnd` alone can time it.
 * `result` and `error` are set by TracingChannel before `asyncEnd` / `error` are published.
 */
export interface OperationContext {
  /** Which operation the span is. */
  readonly operation: 'acquire' | 'extend' | 'release';
  /** The lock's resources. */
  readonly resources: readonly string[];
  /** The requested duration in ms (acquire, extend); 0 for release. */
  readonly duration: number;
  /** The lock operated on (extend, release). */
  readonly lock?: Lock;
  /** When the call began, `performance.now()` ms. */
  readonly start: number;
  /** What the call resolved with: the Lock (acquire, extend) or the ReleaseResult. */
  result?: Lock | ReleaseResult;
  /** What the call rejected with. */
  error?: unknown;
}

const renewal = channel(RENEWAL_CHANNEL);
const acquireTrace: TracingChannel<unknown, OperationContext> = tracingChannel(ACQUIRE_CHANNEL);
const extendTrace: TracingChannel<unknown, OperationContext> = tracingChannel(EXTEND_CHANNEL);
const releaseTrace: TracingChannel<unknown, OperationContext> = tracingChannel(RELEASE_CHANNEL);

export function publishRenewal(lock: Lock, renewed: boolean): void {
  if (renewal.hasSubscribers) renewal.publish({ lock, renewed } satisfies RenewalMessage);
}

/**
 * Runs `fn` (the method doing the work, called on `self`) under the acquire TracingChannel. Without
 * subscribers it is the plain call: the very promise `fn` returns, no context, no closure, no extra
 * promise. The method and its arguments are passed rather than a closure for that reason.
 */
export function traceAcquire<S, O, T>(self: S, fn: (this: S, resources: readonly string[], duration: number, settings: O) => Promise<T>, resources: readonly string[], duration: number, settings: O): Promise<T> {
  if (!acquireTrace.hasSubscribers) return fn.call(self, resources, duration, settings);
  return acquireTrace.tracePromise(fn, { operation: 'acquire', resources, duration, start: performance.now() }, self, resources, duration, settings);
}

export function traceExtend<S, O, T>(self: S, fn: (this: S, lock: Lock, duration: number, settings: O) => Promise<T>, lock: Lock, duration: number, settings: O): Promise<T> {
  if (!extendTrace.hasSubscribers) return fn.call(self, lock, duration, settings);
  return extendTrace.tracePromise(fn, { operation: 'extend', resources: resourcesOf(lock), duration, lock, start: performance.now() }, self, lock, duration, settings);
}

export function traceRelease<S, O, T>(self: S, fn: (this: S, lock: Lock, settings: O) => Promise<T>, lock: Lock, settings: O): Promise<T> {
  if (!releaseTrace.hasSubscribers) return fn.call(self, lock, settings);
  return releaseTrace.tracePromise(fn, { operation: 'release', resources: resourcesOf(lock), duration: 0, lock, start: performance.now() }, self, lock, settings);
}

/** A caller may pass anything as the lock (the method rejects it with a typed error); the context must not throw first. */
function resourcesOf(lock: unknown): readonly string[] {
  const resources: unknown = (lock as Partial<Lock> | null | undefined)?.resources;
  return Array.isArray(resources) ? resources as readonly string[] : [];
}
