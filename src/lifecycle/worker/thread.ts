/**
 * The renewal worker's entry (renewal 'worker'): its own connections and the main thread's renewal scheduler, over
 * locks whose validity lives in shared cells, renewed only while the main thread's heartbeat is fresh.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { MasterSet } from '../../engine/masters.js';
import { ExtensionLimitError, LockRevokedError, RedlockClosedError, type PipelockError } from '../../errors.js';
import { checkClients } from '../../transport/members.js';
import { WatchHub } from '../../watch/hub.js';
import { Lock, kOps, kRefused, kRenewal, kRenewed, type LockOwner, type Renewing } from '../lock.js';
import { Renewals, stopRenewing } from '../renewal.js';
import type { HoldSettings } from '../hold.js';
import { BLOCKED, Cells, Heartbeat, HELD, LIMIT, LOST, REFUSED, REVOKED, SKIPPED, toLocal, toShared, type CellState } from './cells.js';
import type { HoldOrder, Order, Report, WorkerData } from './messages.js';

/** The worker's locks are never released or extended by a caller: only renewed. */
const kNoOwner: LockOwner = {
  release: () => Promise.reject(new Error('a renewal worker lock is released by the main thread')),
  extend: () => Promise.reject(new Error('a renewal worker lock is extended by the main thread')),
};

/** A lock as the worker holds it: each renewal also goes to its cell, where the main thread reads it. */
class CellLock extends Lock {
  constructor(masters: MasterSet, order: HoldOrder, readonly slot: number, readonly cells: Cells, now: number) {
    super(kNoOwner, masters, order.resources, order.token, [], toLocal(cells.until(order.slot)), order.extensions, now);
    this[kOps] = { extend: order.extend, release: order.release, watchable: order.watchable };
  }

  override [kRenewed](validUntil: number, now: number): void {
    super[kRenewed](validUntil, now);
    this.cells.setUntil(this.slot, toShared(validUntil));
  }

  /** The main thread reads it lost from now on, while this thread reads whether a force-release says why. */
  override [kRefused](): void {
    this.cells.setState(this.slot, REFUSED);
  }
}

/** How long the worker waits for its connections before it says it is ready anyway (its renewals retry). */
const kReadyMs = 5000;
const data = workerData as WorkerData;
const port = parentPort!;
const reports = data.reports;
/** The renewal settings hold orders name, by id. */
const settings = new Map<number, HoldSettings>();
const cells = new Cells();
const heartbeat = new Heartbeat(data.heartbeat);
const bound = data.settings.heartbeatBound;
const masters = new MasterSet(checkClients(data.urls), data.settings, data.clientOptions, { wanted: () => false, report: () => undefined });
const hub = new WatchHub(masters.nodes.map((node) => node.transport));
const held = new Map<number, CellLock>();
let lost: [number, CellState, string, string][] = [];
let freed: number[] = [];
let flushing = false;

/** A renewal skipped for the heartbeat is marked in the lock's cell (SKIPPED), where both threads read it. */
function mayRenew(lock: Lock): boolean {
  if (!(lock instanceof CellLock)) return true;
  const slot = lock.slot;
  if (heartbeat.age < bound) {
    if (cells.state(slot) === SKIPPED) cells.setState(slot, HELD);
    return true;
  }
  cells.setState(slot, SKIPPED);
  return false;
}

const renewals = new Renewals(masters, data.settings.renewalWindow, hub, mayRenew);

/** One report per tick, however many locks it lost or freed. */
function flush(): void {
  if (flushing) return;
  flushing = true;
  queueMicrotask(() => {
    flushing = false;
    const report: Report = { lost, freed };
    lost = [];
    freed = [];
    reports.postMessage(report);
  });
}

function stateOf(slot: number, error: PipelockError): CellState {
  if (cells.state(slot) === SKIPPED) return BLOCKED;
  if (error instanceof LockRevokedError) return REVOKED;
  return error instanceof ExtensionLimitError ? LIMIT : LOST;
}

/** Each lock's loss handler: its slot is bound here rather than read back from the Lock. */
const onLost = (slot: number) => (lock: Lock, error: PipelockError): void => {
  if (held.get(slot) !== lock) return;
  const state = stateOf(slot, error);
  cells.setState(slot, state);
  lost.push([slot, state, error.message, error instanceof LockRevokedError ? error.reason : '']);
  flush();
};

function hold(order: HoldOrder): void {
  const lock = new CellLock(masters, order, order.slot, cells, performance.now());
  held.set(order.slot, lock);
  cells.setState(order.slot, HELD);
  renewals.hold(lock, order.duration, settings.get(order.settings)!, onLost(order.slot));
}

function drop(slot: number, discard: boolean): void {
  const lock = held.get(slot);
  held.delete(slot);
  if (lock !== undefined) stopRenewing(lock);
  freed.push(slot);
  flush();
  if (discard && lock !== undefined && !masters.isClosed()) masters.discard(lock.resources, lock.value, lock[kOps].release);
}

/** extend() on the main thread sent an extension: renewed for its duration from now on. */
function retime(slot: number, duration: number): void {
  const renewal: Renewing | undefined = held.get(slot)?.[kRenewal];
  renewal?.retime(duration);
}

async function quit(): Promise<void> {
  held.clear();
  renewals.stop(new RedlockClosedError());
  hub.close();
  if (masters.shut()) {
    await masters.drain();
    await masters.close(false);
  }
  reports.postMessage({ lost: [], freed: [], closed: true } satisfies Report);
  reports.close();
  port.close();
}

// The main thread's ready() waits for this: a lock held before the worker runs is not renewed.
void masters.ready(kReadyMs).catch(() => undefined).then(() => {
  reports.postMessage({ lost: [], freed: [], ready: true } satisfies Report);
});

port.on('message', (orders: readonly Order[]) => {
  for (const order of orders) {
    if (order.t === 'hold') hold(order);
    else if (order.t === 'page') cells.add(order.buffer);
    else if (order.t === 'settings') settings.set(order.id, order.settings);
    else if (order.t === 'drop') drop(order.slot, order.discard);
    else if (order.t === 'retime') retime(order.slot, order.duration);
    else void quit();
  }
});
