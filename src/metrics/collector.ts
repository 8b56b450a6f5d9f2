import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { CapabilityChange } from '../engine/capability.js';
import { memberCapabilities } from '../engine/member-capabilities.js';
import {
  ACQUIRE_CHANNEL, ACQUIRE_RETRY_CHANNEL, CAPABILITY_CHANNEL, EXTEND_CHANNEL, LOCK_LOST_CHANNEL, NODE_CALL_CHANNEL, NODE_ERROR_CHANNEL,
  RELEASE_CHANNEL, RENEWAL_CHANNEL, type AcquireRetryMessage, type LockLostMessage, type NodeCallMessage, type NodeErrorMessage,
} from '../engine/channels.js';
import type * as Channels from '../engine/channels.js';
import { Lock } from '../lifecycle/lock.js';
import type { ReleaseResult } from '../lifecycle/release-result.js';
import type { ResourceLabel } from './labels.js';

/**
 * The context object of the acquire, extend and release TracingChannels (src/engine/channels.ts,
 * with their Lock and ReleaseResult). `start` is performance.now() when the call began, so a
 * listener to `asyncEnd` alone can time it; `result` and `error` are set before `asyncEnd` / `error`.
 */
export interface OperationContext extends Channels.OperationContext<Lock, ReleaseResult> {
  /** Which operation the span is. */
  readonly operation: 'acquire' | 'extend' | 'release';
  /** The lock operated on (extend, release). */
  readonly lock?: Lock;
  /** What the call resolved with: the Lock (acquire, extend) or the ReleaseResult. */
  result?: Lock | ReleaseResult;
}
/** A `pipelock:renewal` message: one renewal of an auto-extended lock, `renewed` or not (a failed one retried until lost). */
export interface RenewalMessage extends Channels.RenewalMessage<Lock> {
  /** The auto-extended lock. */
  readonly lock: Lock;
}

/** The label value of a successful operation in `code`. */
export const OK = 'OK';

/** Where the collector's observations go: one implementation per metrics library. */
export interface MetricsSink {
  /** An acquire, extend or release ended: `code` is OK or the error's code. */
  operation(operation: OperationContext['operation'], code: string, seconds: number, resource: string | undefined): void;
  acquireRetry(resource: string | undefined): void;
  /** An acquisition attempt was refused because another holder has the lock (retried or not). */
  contention(resource: string | undefined): void;
  /** A lock this process held was released, after `seconds` held (from its acquisition, extensions included). */
  hold(seconds: number, resource: string | undefined): void;
  renewal(renewed: boolean): void;
  lockLost(code: string, resource: string | undefined): void;
  masterError(master: string, code: string): void;
  masterCall(master: string, seconds: number, failed: boolean): void;
  /** A member's commands changed (its probe answered, or it fell back to scripts): what its single-key extend and release send now. */
  capability(master: string, reason: 'probe' | 'fallback', extend: string, release: string): void;
}

/** Turns pipelock's channel events into sink calls and keeps this process's held locks for the gauges. */
export class Collector {
  readonly #sink: MetricsSink;
  readonly #label: ResourceLabel | undefined;
  /** Each held lock with when it was acquired (performance.now() ms), carried over its extensions. */
  readonly #held = new Map<Lock, number>();
  /** acquire() calls begun and not yet ended, by label: the waiting callers. */
  readonly #waiting = new Map<string | undefined, number>();
  readonly #begun = new WeakSet<object>();
  readonly #unsubscribe: (() => void)[] = [];
  /** Prune expired locks every this many additions, so a process that never reads the gauges stays bounded. */
  #pruneAt = 1024;

  constructor(sink: MetricsSink, label: ResourceLabel | undefined) {
    this.#sink = sink;
    this.#label = label;
    // asyncEnd alone: it comes after success and failure alike, with `result` or `error` set.
    for (const name of [ACQUIRE_CHANNEL, EXTEND_CHANNEL, RELEASE_CHANNEL]) this.#on(`tracing:${name}:asyncEnd`, this.#ended);
    this.#on(`tracing:${ACQUIRE_CHANNEL}:start`, this.#begin);
    this.#on(ACQUIRE_RETRY_CHANNEL, (m: AcquireRetryMessage) => {
      const resource = this.#resource(m.resources);
      sink.acquireRetry(resource);
      sink.contention(resource);
    });
    this.#on(RENEWAL_CHANNEL, (m: RenewalMessage) => {
      sink.renewal(m.renewed);
    });
    this.#on(LOCK_LOST_CHANNEL, (m: LockLostMessage) => {
      sink.lockLost(codeOf(m.error), this.#resource(m.resources));
    });
    this.#on(NODE_ERROR_CHANNEL, (m: NodeErrorMessage) => {
      sink.masterError(m.name, codeOf(m.error));
    });
    this.#on(NODE_CALL_CHANNEL, (m: NodeCallMessage) => {
      sink.masterCall(m.name, m.durationMs / 1000, m.error !== undefined);
    });
    this.#on(CAPABILITY_CHANNEL, (m: CapabilityChange) => {
      const paths = memberCapabilities(m.node, m.name, m.capabilities, true);
      sink.capability(m.name, m.reason, paths.extend, paths.release);
    });
  }

  /** Locks held by this process now, and how many of them are auto-extended, by resource label when opted in. */
  held(): { held: Map<string | undefined, number>; autoExtended: Map<string | undefined, number> } {
    const held = new Map<string | undefined, number>();
    const autoExtended = new Map<string | undefined, number>();
    this.#prune();
    for (const lock of this.#held.keys()) {
      const label = this.#resource(lock.resources);
      held.set(label, (held.get(label) ?? 0) + 1);
      if (lock.signal !== undefined) autoExtended.set(label, (autoExtended.get(label) ?? 0) + 1);
    }
    return { held, autoExtended };
  }

  /** acquire() calls in flight now (waiting for their turn, their attempts or their retries), by resource label when opted in. */
  waiting(): Map<string | undefined, number> {
    return new Map(this.#waiting);
  }

  close(): void {
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
    this.#held.clear();
  }

  #on(name: string, listener: (message: never) => void): void {
    const onMessage = listener as (message: unknown) => void;
    subscribe(name, onMessage);
    this.#unsubscribe.push(() => {
      unsubscribe(name, onMessage);
    });
  }

  readonly #begin = (message: unknown): void => {
    const context = message as OperationContext;
    this.#begun.add(context);
    const label = this.#resource(context.resources);
    this.#waiting.set(label, (this.#waiting.get(label) ?? 0) + 1);
  };

  readonly #ended = (message: unknown): void => {
    const context = message as OperationContext;
    const failed = 'error' in context;
    const code = failed ? codeOf(context.error) : OK;
    const now = performance.now();
    const resource = this.#resource(context.resources);
    this.#sink.operation(context.operation, code, (now - context.start) / 1000, resource);
    if (context.operation === 'acquire') this.#acquired(context, code, resource);
    const since = context.lock === undefined ? undefined : this.#held.get(context.lock);
    if (context.lock !== undefined) this.#held.delete(context.lock);
    // A released lock is gone whatever the release said; a failed extension leaves the lock as it was.
    if (context.operation === 'release') {
      if (since !== undefined) this.#sink.hold((now - since) / 1000, resource);
      return;
    }
    if (failed) {
      if (context.lock !== undefined && context.lock.validity > 0) this.#held.set(context.lock, since ?? now);
      return;
    }
    if (context.result instanceof Lock) this.#add(context.result, since ?? now);
  };

  /** An acquire() ended: it waits no more (if this collector saw it begin), and a final refusal is contention too. */
  #acquired(context: OperationContext, code: string, resource: string | undefined): void {
    if (this.#begun.delete(context)) {
      const left = (this.#waiting.get(resource) ?? 1) - 1;
      if (left > 0) this.#waiting.set(resource, left);
      else this.#waiting.delete(resource);
    }
    if (code === 'ERR_PIPELOCK_RESOURCE_LOCKED') this.#sink.contention(resource);
  }

  #add(lock: Lock, since: number): void {
    this.#held.set(lock, since);
    if (this.#held.size >= this.#pruneAt) {
      this.#prune();
      this.#pruneAt = Math.max(1024, 2 * this.#held.size);
    }
  }

  #prune(): void {
    for (const lock of this.#held.keys()) if (lock.validity <= 0) this.#held.delete(lock);
  }

  #resource(resources: readonly string[]): string | undefined {
    if (this.#label === undefined) return undefined;
    return this.#label(Array.isArray(resources) ? resources : []);
  }
}

/** A bounded label for an error: its `code`, else the Redis error's first word (NOSCRIPT, NOPERM), else the class name. */
export function codeOf(error: unknown): string {
  if (typeof error !== 'object' || error === null) return 'UNKNOWN';
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,63}$/.test(code)) return code;
  const message = (error as { message?: unknown }).message;
  const word = typeof message === 'string' ? /^([A-Z][A-Z_]{1,31})\s/.exec(message)?.[1] : undefined;
  if (word !== undefined) return word;
  const name = (error as { name?: unknown }).name;
  return typeof name === 'string' && /^\w{1,64}$/.test(name) ? name : 'UNKNOWN';
}
