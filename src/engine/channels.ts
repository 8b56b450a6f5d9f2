import { channel } from 'node:diagnostics_channel';
import type { CapabilityChange } from './capability.js';

/**
 * pipelock's lifecycle events on node:diagnostics_channel, the channel Node's own HTTP client
 * (undici), fastify and pino publish on, which APM agents already subscribe to. Every publisher
 * checks `hasSubscribers` first and builds no message otherwise, so an application that listens
 * to nothing pays one property read per event site. Messages carry the caller's own objects
 * (resources array, Lock, Error) by reference: listeners must treat them as read-only.
 */

/** Published for every master-level failure: `{ node, name, error }`. Costs nothing without subscribers. */
export const NODE_ERROR_CHANNEL = 'pipelock:node-error';
/** Published when an auto-extended lock is lost: `{ resources, error }`. */
export const LOCK_LOST_CHANNEL = 'pipelock:lock-lost';
/** An acquire lost an attempt and waits to retry: `{ resources, attempt }` (the attempt that was lost, from 1). */
export const ACQUIRE_RETRY_CHANNEL = 'pipelock:acquire:retry';
/** One script call to a master was answered or failed: `{ node, name, durationMs, operations, error? }`. */
export const NODE_CALL_CHANNEL = 'pipelock:node-call';

/**
 * A member's capabilities changed: its probe answered at connect, or a native command failed and it
 * fell back to scripts (a CapabilityChange: `{ node, name, capabilities, previous, reason, error? }`).
 */
export const CAPABILITY_CHANNEL = 'pipelock:capability';

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
  if (start !== 0 && nodeCall.hasSubscribers) nodeCall.publish({ node, name, durationMs: performance.now() - start, operations } satisfies NodeCallMessage);
}

export function publishNodeCallError(node: number, name: string, start: number, operations: number, error: unknown): void {
  if (start === 0 || !nodeCall.hasSubscribers) return;
  const cause = error instanceof Error ? error : new Error(String(error));
  nodeCall.publish({ node, name, durationMs: performance.now() - start, operations, error: cause } satisfies NodeCallMessage);
}
