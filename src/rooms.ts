import type { EventEmitter } from 'node:events';
import type { RedisClientOptions } from '@redis/client';
import { AdmissionWindow } from './admission/window.js';
import type { MemberEntry } from './clients.js';
import { MasterSet, type Reports } from './engine/masters.js';
import { InvalidArgumentError, RedlockClosedError } from './errors.js';
import { Acquirer } from './lifecycle/acquire.js';
import { plainCall, type ResolvedCall } from './lifecycle/call.js';
import { memberCapabilities } from './engine/member-capabilities.js';
import type { LockOwner } from './lifecycle/lock.js';
import { Releases } from './lifecycle/release.js';
import { Renewals } from './lifecycle/renewal.js';
import type { Scheduler } from './lifecycle/hold.js';
import { checkWorkerMembers, WorkerRenewals } from './lifecycle/worker/renewer.js';
import type { ResolvedSettings } from './settings.js';
import { checkClients } from './transport/members.js';
import { isObject } from './util/checks.js';
import { Waiters } from './waiting/waiters.js';
import { WatchHub } from './watch/hub.js';

/** What the recipes built on a Redlock (src/recipes/) reach below its public API. */
export interface RedlockInternals {
  readonly masters: MasterSet;
  readonly report: (error: unknown) => void;
}

/** Each Redlock's rooms, for `internals()`: reachable only through this module, as a `#private` field is through its class. */
const roomsOf = new WeakMap<LockOwner, Rooms>();

/** The engine and the 'error' event of a Redlock, for the recipes built on it (not exported by the package). */
export function internals(redlock: LockOwner): RedlockInternals {
  return roomsOf.get(redlock)!;
}

/**
 * The rooms one Redlock is built of, wired once at construction, and their shutdown in order: the facade (src/redlock.ts)
 * checks each call's arguments and hands it to one of them.
 */
export class Rooms implements RedlockInternals {
  readonly masters: MasterSet;
  readonly report: (error: unknown) => void;
  /** What a call without settings resolves to. */
  readonly plain: ResolvedCall;
  readonly window = new AdmissionWindow();
  readonly hub: WatchHub;
  /** Undefined with `wakeups: false` or no member to watch. */
  readonly waiters: Waiters | undefined;
  readonly renewals: Scheduler;
  readonly releases: Releases;
  readonly acquirer: Acquirer;

  constructor(
    owner: LockOwner, clients: Iterable<MemberEntry>, settings: ResolvedSettings, clientOptions: RedisClientOptions | undefined,
    reports: Reports,
  ) {
    roomsOf.set(owner, this);
    this.report = reports.report;
    const entries = checkClients(clients);
    const urls = settings.renewal === 'worker' ? checkWorkerMembers(entries, clientOptions) : undefined;
    const masters = this.masters = new MasterSet(entries, settings, clientOptions, reports);
    this.plain = plainCall(settings);
    this.hub = new WatchHub(masters.nodes.map((node) => node.transport));
    this.waiters = settings.wakeups && this.hub.watchable
      ? new Waiters(this.hub, masters.quorum, masters.names, masters.nodes.map((node) => node.name), () => masters.scripting)
      : undefined;
    this.releases = new Releases(masters, this.window, this.waiters);
    this.renewals = urls === undefined
      ? new Renewals(masters, settings.renewalWindow, this.hub)
      : new WorkerRenewals(urls, settings, clientOptions, reports.report);
    this.acquirer = new Acquirer(owner, masters, this.window, this.waiters, this.renewals, this.releases, this.plain, reports.report);
  }

  /** Redlock.quit(): closes every room once; later calls resolve at once. */
  async close(options: unknown): Promise<void> {
    if (options !== undefined && (!isObject(options) || (options.keepClients !== undefined && typeof options.keepClients !== 'boolean'))) {
      throw new InvalidArgumentError('options.keepClients', 'must be a boolean', options);
    }
    if (!this.masters.shut()) return;
    this.renewals.stop(new RedlockClosedError());
    this.window.close(new RedlockClosedError());
    this.waiters?.close();
    this.hub.close();
    // What was already sent is answered (or timed out) and undone before the connections close,
    // so no key outlives a quit but those of locks the caller holds.
    await this.masters.drain();
    await this.masters.close(options?.keepClients === true);
    await this.renewals.close();
  }
}

/** node-redlock's 'error' event and the 'capability' event on `emitter`: built and emitted only when someone listens. */
export function emitterReports(emitter: EventEmitter): Reports {
  return {
    wanted: () => emitter.listenerCount('error') > 0,
    report: (error) => { if (emitter.listenerCount('error') > 0) emitter.emit('error', error); },
    capability: (change) => {
      if (emitter.listenerCount('capability') === 0) return;
      emitter.emit('capability', memberCapabilities(change.node, change.name, change.capabilities, true, change));
    },
  };
}
