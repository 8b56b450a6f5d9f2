import { EventEmitter } from 'node:events';
import type { MessagePort } from 'node:worker_threads';
import type { Lock } from '../../src/index.js';
import type { WorkerData } from '../../src/lifecycle/worker/messages.js';
import type { History } from './history.js';
import type { Host } from './host.js';
import type { Network } from './network.js';
import { Proc } from './process.js';
import { letGo, outcome, sleep, type Worker } from './workloads.js';

/**
 * Renewal 'worker' (src/lifecycle/worker/) in the simulated world. The worker thread is its own
 * simulated process: its own connections to the masters, the process's monotonic clock, and no
 * pauses of its own (a blocked main loop does not stop it), sharing the main thread's validity
 * cells and heartbeat (the same SharedArrayBuffers: one JavaScript thread runs both). Orders and
 * reports cross as structured clones a hop later, as postMessage's do. It runs pipelock's own
 * thread.ts, main side and scheduler; three text patches (kWorkerPatches, applied to a copy of
 * src/ as planted bugs are) let the simulated clients in: a Redlock with renewal 'worker' takes
 * client objects (they need not cross a thread here), spawn() asks the world for its worker, and
 * thread.ts's body becomes a function of its workerData and port instead of running at import.
 */
export const kWorkerPatches = [
  {
    file: 'src/rooms.ts',
    from: "const urls = settings.renewal === 'worker' ? checkWorkerMembers(entries, clientOptions) : undefined;",
    to: "const urls = settings.renewal === 'worker' ? (entries as unknown as string[]) : undefined;",
  },
  {
    file: 'src/lifecycle/worker/renewer.ts',
    from: 'function spawn(workerData: WorkerData): Worker {',
    to: 'function spawn(workerData: WorkerData): Worker {\n  const sim = (globalThis as { pipelockSimWorker?: (data: WorkerData) => Worker }).pipelockSimWorker;\n  if (sim !== undefined) return sim(workerData);',
  },
  {
    file: 'src/lifecycle/worker/thread.ts',
    from: 'const data = workerData as WorkerData;\nconst port = parentPort!;',
    to: "export function simStart(data: WorkerData, port: import('node:worker_threads').MessagePort): void {",
  },
  {
    file: 'src/lifecycle/worker/thread.ts',
    from: '    else void quit();\n  }\n});\n',
    to: '    else void quit();\n  }\n});\n}\n',
  },
] as const;

/** What thread.ts exports once patched. */
export type SimStart = (data: WorkerData, port: MessagePort) => void;

/** A message between the threads takes this long (ms): a hop, not a network round trip. */
const kHopMs = 0.05;

/** The main thread's `Worker`: what src/lifecycle/worker/renewer.ts uses of one. */
export class SimWorker extends EventEmitter {
  readonly proc: Proc;
  #listener: ((orders: unknown) => void) | undefined;
  #exited = false;

  constructor(readonly main: Proc, id: number, data: WorkerData, start: SimStart, net: Network, hosts: readonly Host[]) {
    super();
    const proc = this.proc = new Proc(main.world, id, main.rate, main.perfOffset);
    proc.dateOffset = main.dateOffset;
    const port = {
      on: (event: string, fn: (orders: unknown) => void) => { if (event === 'message') this.#listener = fn; return port; },
      postMessage: (report: unknown) => { this.#toMain(structuredClone(report)); },
      close: () => undefined,
    };
    proc.run(() => {
      const clients = hosts.map((host) => net.client(proc, host, 2, false));
      for (const client of clients) client.connectNow();
      start({ ...data, urls: clients as unknown as string[] }, port as unknown as MessagePort);
    });
  }

  #toMain(message: unknown): void {
    this.main.at(this.main.world.now + kHopMs, () => { if (!this.#exited) this.emit('message', message); });
  }

  unref(): this {
    return this;
  }

  postMessage(orders: unknown): void {
    const copy = structuredClone(orders);
    this.proc.at(this.proc.world.now + kHopMs, () => { if (!this.#exited) this.#listener?.(copy); });
  }

  terminate(): Promise<number> {
    if (!this.#exited) {
      this.#exited = true;
      this.main.at(this.main.world.now + kHopMs, () => { this.emit('exit', 1); });
    }
    return Promise.resolve(1);
  }
}

/** The heartbeat bound the 'worker' scenario's Redlocks get (ms). */
export const kHeartbeatBound = 500;
/**
 * Past bound + duration (or the most validity its holder saw, if more: a lock passed within the
 * process keeps its holder's), a lock of a blocked loop must read lost: this much more for the hops
 * and a renewal's round trip.
 */
const kSlackMs = 100;
const kDurations = [300, 1000, 2500];

/** The longest pause of `proc` within [from, to], clipped to it (ms). */
function blockedFor(proc: Proc, from: number, to: number): number {
  let longest = 0;
  for (const [a, b] of proc.pauses) longest = Math.max(longest, Math.min(b, to) - Math.max(a, from));
  return longest;
}

/**
 * Auto-extended locks renewed by the worker, held while the main loop blocks now and then, past
 * the heartbeat bound too: within the bound the lock is kept (a blocked loop loses nothing); past
 * bound + duration it must read lost when the loop runs again (a hung process holds nothing for ever).
 */
export async function workerHolds(w: Worker, until: number): Promise<void> {
  const { proc, random, redlock, history, holders } = w;
  while (proc.world.now < until) {
    const resource = random.pick(w.resources);
    const duration = random.pick(kDurations);
    const op = history.op(proc.id, `acquire ${resource} ${duration} worker`);
    let lock: Lock | undefined;
    try {
      lock = await redlock.acquire([resource], duration, { retryCount: random.between(0, 20), autoExtend: true });
      history.settle(op, `ok ${lock.validity.toFixed(1)}`);
    } catch (error) {
      history.settle(op, outcome(error));
    }
    if (lock !== undefined) {
      const claim = holders.take(proc, lock, resource, 'x', 1, duration);
      // A lock passed within the process comes with its holder's validity, which may outlast bound + duration.
      let most = lock.validity;
      for (let i = random.between(0, 4); i > 0; i--) {
        if (random.chance(0.3)) {
          const ms = random.between(1, 2 * (kHeartbeatBound + duration));
          proc.pause(ms);
          history.log(proc.id, `blocks its loop ${ms} ms`);
        }
        await sleep(random.between(1, 500));
        const blocked = blockedFor(proc, claim.from, proc.world.now);
        const limit = Math.max(most, kHeartbeatBound + duration) + kSlackMs;
        if (blocked > limit && lock.signal?.aborted === false) {
          holders.violations.push({ property: 'heartbeat', resource, at: proc.world.now, text: `${claim.holder} (p${proc.id}): its loop blocked ${blocked.toFixed(0)} ms (bound ${kHeartbeatBound} + duration ${duration}; ${most.toFixed(0)} ms of validity seen), and its lock still reads held` });
        }
        if (!holders.see(proc, claim, lock)) break;
        most = Math.max(most, lock.validity);
      }
      holders.kept(proc, claim, lock, !w.mayAbandon);
      holders.drop(proc, claim, lock);
      await letGo(w, lock, resource);
    }
    await sleep(random.between(0, 200));
  }
}

/** The world's side of spawn(): a SimWorker for the process constructing a Redlock now. */
export function workerFactory(start: SimStart, net: Network, hosts: readonly Host[], current: () => Proc | undefined, history: History, spawned: Proc[]): (data: WorkerData) => SimWorker {
  return (data) => {
    const main = current()!;
    const worker = new SimWorker(main, 10 + main.id, data, start, net, hosts);
    spawned.push(worker.proc);
    history.log(main.id, `renewal worker p${worker.proc.id} started`);
    return worker;
  };
}
