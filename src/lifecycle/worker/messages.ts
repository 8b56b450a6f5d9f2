import type { RedisClientOptions } from '@redis/client';
import type { MessagePort } from 'node:worker_threads';
import type { OpCode } from '../../protocol/opcodes.js';
import type { ResolvedSettings } from '../../settings.js';
import type { HoldSettings } from '../hold.js';
import type { CellState } from './cells.js';

/** What the renewal worker starts with (its workerData). */
export interface WorkerData {
  /** The members' URLs, in order. */
  readonly urls: readonly string[];
  readonly settings: ResolvedSettings;
  readonly clientOptions: RedisClientOptions | undefined;
  /** The main thread's heartbeat (src/lifecycle/worker/cells.ts). */
  readonly heartbeat: SharedArrayBuffer;
  /** Where the worker posts its Reports: a port of its own, which the main thread can also drain synchronously. */
  readonly reports: MessagePort;
}

/** A held lock the worker renews from now on; its cell already holds its validity. */
export interface HoldOrder {
  readonly t: 'hold';
  readonly slot: number;
  readonly resources: readonly string[];
  readonly token: string;
  readonly duration: number;
  readonly extensions: number;
  readonly extend: OpCode;
  readonly release: OpCode;
  readonly watchable: boolean;
  /** The id of a 'settings' order sent before: locks held with the same settings share one copy. */
  readonly settings: number;
}

/** Main thread → worker, in batches (one message per tick). */
export type Order =
  | { readonly t: 'page'; readonly buffer: SharedArrayBuffer }
  /** The renewal settings that hold orders name by `id` from now on. */
  | { readonly t: 'settings'; readonly id: number; readonly settings: HoldSettings }
  | HoldOrder
  /** Stop renewing the lock in `slot` (released or lost); `discard`: delete its keys, owner-checked. */
  | { readonly t: 'drop'; readonly slot: number; readonly discard: boolean }
  /** extend() sent an extension of `duration`: the worker renews the lock for it from now on. */
  | { readonly t: 'retime'; readonly slot: number; readonly duration: number }
  | { readonly t: 'quit' };

/** Worker → main thread: the locks it lost (their cells already say so), and the slots free again. */
export interface Report {
  readonly lost: readonly (readonly [slot: number, state: CellState, message: string, reason: string])[];
  readonly freed: readonly number[];
  /** The worker runs, its connections to a quorum open (or they failed for 5 s). */
  readonly ready?: boolean;
  /** The worker closed its connections after a 'quit'. */
  readonly closed?: boolean;
}
