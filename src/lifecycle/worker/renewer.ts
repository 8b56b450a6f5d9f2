import type { RedisClientOptions } from '@redis/client';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { MemberEntry } from '../../clients.js';
import { publishLockLost } from '../../engine/channels.js';
import { InvalidArgumentError, LockLostError, type PipelockError } from '../../errors.js';
import type { ResolvedSettings } from '../../settings.js';
import { memberKind } from '../../transport/members.js';
import { kLost, kOps, kRenewal, type Lock, type LockLostHandler, type RedlockAbortSignal } from '../lock.js';
import type { HoldSettings, Scheduler } from '../hold.js';
import { Cells, Heartbeat, HELD, kPageSlots, toShared } from './cells.js';
import { WorkerHeld, type HeldOwner } from './held.js';
import { after } from '../../util/time.js';
import type { Order, Report, WorkerData } from './messages.js';

/** How long close() waits for the worker to close its connections before it is terminated. */
const kCloseGraceMs = 2000;

/** Renewal 'worker' needs what can cross to a thread: URLs and cloneable client options. */
export function checkWorkerMembers(entries: readonly MemberEntry[], clientOptions: RedisClientOptions | undefined): string[] {
  entries.forEach((entry, index) => {
    if (memberKind(entry) !== 'url') throw new InvalidArgumentError(`clients[${index}]`,
      "must be a redis:// URL with renewal 'worker' (a client object cannot cross to the worker thread)", entry);
  });
  try {
    structuredClone(clientOptions);
  } catch (error) {
    throw new InvalidArgumentError('settings.clientOptions',
      `must be cloneable to the worker thread with renewal 'worker' (no functions such as reconnectStrategy): ${(error as Error).message}`,
        clientOptions);
  }
  return entries as string[];
}

/** The worker's entry sits beside this file, built (.js) or run from source (.ts, as the tests do). */
function spawn(workerData: WorkerData): Worker {
  const source = import.meta.url.endsWith('.ts');
  const entry = new URL(source ? './thread.ts' : './thread.js', import.meta.url);
  const transferList = [workerData.reports];
  if (!source) return new Worker(entry, { workerData, transferList });
  // On Node 20 a loader registered with --import does not reach worker threads: the worker registers tsx itself.
  const boot = `import('tsx/esm/api').then((tsx) => tsx.register()).then(() => import(${JSON.stringify(entry.href)}))`;
  return new Worker(boot, { eval: true, workerData, transferList });
}

// A worker-renewed Lock reads its validity from its cell: own accessors over the Lock's, the same
// functions for every lock (a closure per lock cost ~260 bytes of heap each).
function validUntilOf(this: Lock): number {
  return (this[kRenewal] as WorkerHeld).validUntil;
}
function expirationOf(this: Lock): number {
  const held = this[kRenewal] as WorkerHeld;
  return held.gone ? 0 : Date.now() + (held.validUntil - performance.now());
}
function setExpiration(this: Lock, value: number): void {
  (this[kRenewal] as WorkerHeld).gone = value === 0;
}
const kValidUntil: PropertyDescriptor = { get: validUntilOf, configurable: true };
const kExpiration: PropertyDescriptor = { get: expirationOf, set: setExpiration, enumerable: true, configurable: true };

/** How often the main thread marks itself alive: an eighth of the bound, so a stretch under 7/8 of it never trips. */
export function beatPeriod(boundMs: number): number {
  return Math.max(5, boundMs / 8);
}

/** The main thread's side of renewal 'worker' (src/lifecycle/worker/thread.ts): hands locks over, beats, hears losses. */
export class WorkerRenewals implements Scheduler, HeldOwner {
  readonly cells = new Cells();
  readonly boundMs: number;
  readonly maxExtensions: number;
  readonly #worker: Worker;
  readonly #reports: MessagePort;
  readonly #heartbeat = new Heartbeat();
  readonly #beat: NodeJS.Timeout;
  /** By slot; an array rather than a Map: one word per held lock. */
  readonly #held: (WorkerHeld | undefined)[] = [];
  #size = 0;
  readonly #free: number[] = [];
  /** The id each settings object was sent to the worker under ('settings' orders). */
  readonly #settings = new WeakMap<HoldSettings, number>();
  #settingsSent = 0;
  readonly #report: (error: unknown) => void;
  #orders: Order[] = [];
  #next = 0;
  #closed: Promise<void> | undefined;
  /** Why the worker stopped, once it did: a lock held after that is lost at once. */
  #failed: LockLostError | undefined;
  readonly #ready: Promise<void>;
  #onReady: () => void = () => undefined;
  #onFail: (error: Error) => void = () => undefined;

  constructor(urls: readonly string[], settings: ResolvedSettings, clientOptions: RedisClientOptions | undefined,
    report: (error: unknown) => void) {
    this.boundMs = settings.heartbeatBound;
    this.maxExtensions = settings.maxExtensions;
    this.#report = report;
    this.#heartbeat.beat();
    const { port1, port2 } = new MessageChannel();
    this.#reports = port1;
    const data: WorkerData = { urls, settings, clientOptions, heartbeat: this.#heartbeat.buffer, reports: port2 };
    this.#worker = spawn(data);
    // The masters' own connections keep the process alive while locks are held; the worker must not.
    this.#worker.unref();
    this.#ready = new Promise((resolve, reject) => { this.#onReady = resolve; this.#onFail = reject; });
    // Read by ready() callers; a failure before anyone asked must not be an unhandled rejection.
    this.#ready.catch(() => undefined);
    port1.on('message', (report: Report) => { this.#read(report); });
    port1.unref();
    this.#worker.on('error', (error) => { this.#fail(error); });
    this.#worker.on('exit', (code) => { if (this.#closed === undefined) this.#fail(new Error(`exited with code ${code}`)); });
    // An unref'd beat: the loop turned. A healthy loop's mark is at most bound/8 (plus its lag) old; each beat wakes an
    // idle process, so no more often: at 4 beats/s it was most of the worker's idle cost (BENCHMARKS.md, renewal).
    this.#beat = setInterval(() => { this.#heartbeat.beat(); }, beatPeriod(this.boundMs));
    this.#beat.unref();
  }

  get size(): number {
    return this.#size;
  }

  hold(lock: Lock, duration: number, s: HoldSettings, onLockLost: LockLostHandler | undefined): void {
    const slot = this.#slot();
    this.cells.setUntil(slot, toShared(lock.validUntil));
    this.cells.setState(slot, HELD);
    const held = new WorkerHeld(this, lock, slot, onLockLost);
    this.#held[slot] = held;
    this.#size++;
    lock[kRenewal] = held;
    if (this.#failed !== undefined) {
      this.lose(held, this.#failed, true);
      return;
    }
    Object.defineProperty(lock, 'validUntil', kValidUntil);
    Object.defineProperty(lock, 'expiration', kExpiration);
    const ops = lock[kOps];
    this.#order({ t: 'hold', slot, resources: lock.resources, token: lock.value, duration, extensions: lock.extensions, extend: ops.extend,
      release: ops.release, watchable: ops.watchable, settings: this.#settingsId(s) });
  }

  /** The id `s` was sent under; sent now (before the order that names it) the first time. */
  #settingsId(s: HoldSettings): number {
    let id = this.#settings.get(s);
    if (id !== undefined) return id;
    id = this.#settingsSent++;
    this.#settings.set(s, id);
    const { driftFactor, nodeTimeout, retryDelay, retryJitter, automaticExtensionThreshold, maxExtensions, maxHoldTime, watchHeld } = s;
    this.#order({ t: 'settings', id, settings: { driftFactor, nodeTimeout, retryDelay, retryJitter, automaticExtensionThreshold,
      maxExtensions, maxHoldTime, watchHeld } });
    return id;
  }

  /** A free slot, in a new page when every page is full (the worker is sent the page first). */
  #slot(): number {
    const free = this.#free.pop();
    if (free !== undefined) return free;
    if (this.#next === this.cells.pages * kPageSlots) {
      const buffer = Cells.page();
      this.cells.add(buffer);
      this.#order({ t: 'page', buffer });
    }
    return this.#next++;
  }

  remove(held: WorkerHeld): void {
    this.#drop(held, false);
  }

  retime(held: WorkerHeld, duration: number): void {
    if (held.active) this.#order({ t: 'retime', slot: held.slot, duration });
  }

  #drop(held: WorkerHeld, discard: boolean): void {
    if (!held.active) return;
    held.active = false;
    this.#held[held.slot] = undefined;
    this.#size--;
    // The slot is free once the worker says so: a renewal of its still in flight writes the cell.
    this.#order({ t: 'drop', slot: held.slot, discard });
  }

  lose(held: WorkerHeld, error: PipelockError, discard: boolean): void {
    this.#drop(held, discard);
    const signal: RedlockAbortSignal = held.signal;
    signal.error = error;
    held.lock[kLost]();
    publishLockLost(held.lock.resources, error);
    held.abort(error);
    if (held.onLockLost === undefined) return;
    try {
      held.onLockLost(held.lock, error);
    } catch (hookError) {
      this.#report(hookError);
    }
  }

  stop(reason: PipelockError): void {
    clearInterval(this.#beat);
    for (const held of this.#held) if (held !== undefined) this.lose(held, reason, false);
  }

  close(): Promise<void> {
    if (this.#closed !== undefined) return this.#closed;
    this.#order({ t: 'quit' });
    const worker = this.#worker;
    this.#closed = new Promise<void>((resolve) => {
      const timer = after(kCloseGraceMs, () => { void worker.terminate().then(() => { resolve(); }); });
      worker.once('exit', () => { clearTimeout(timer); this.#reports.close(); resolve(); });
      this.#reports.on('message', (report: Report) => { if (report.closed === true) void worker.terminate(); });
    });
    return this.#closed;
  }

  /** Orders of one tick go as one message. */
  #order(order: Order): void {
    if (this.#orders.push(order) > 1) return;
    queueMicrotask(() => {
      const orders = this.#orders;
      this.#orders = [];
      this.#worker.postMessage(orders);
    });
  }

  opened(): Promise<void> {
    return this.#ready;
  }

  drain(held: WorkerHeld): boolean {
    for (let next = receiveMessageOnPort(this.#reports); next !== undefined; next = receiveMessageOnPort(this.#reports))
      this.#read(next.message as Report);
    return held.active;
  }

  #read(report: Report): void {
    if (report.ready === true) this.#onReady();
    for (const slot of report.freed) this.#free.push(slot);
    for (const [slot, state, message, reason] of report.lost) {
      const held = this.#held[slot];
      if (held !== undefined) this.lose(held, held.errorOf(state, message, reason), false);
    }
  }

  /** The worker failed or exited: nothing renews the locks any more. */
  #fail(cause: unknown): void {
    this.#report(cause);
    this.#onFail(new Error(`the renewal worker stopped before it was ready: ${(cause as Error).message}`, { cause }));
    const error = this.#failed =
      new LockLostError(`the renewal worker stopped (${(cause as Error).message}): nothing renews this lock any more`, [], [], { cause });
    for (const held of this.#held) if (held !== undefined) this.lose(held, error, false);
  }
}
