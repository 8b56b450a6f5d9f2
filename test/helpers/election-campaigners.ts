/**
 * The test's side of test/helpers/election-campaigner.ts: starts a campaigner in a worker thread or
 * a child process, sends it commands, and waits for its reports. A child's terms are written to
 * the ledger here, from its messages and with its own time stamps.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import type { CampaignerInput, FromCampaigner, ToCampaigner } from './election-campaigner.js';
import { Ledger } from './election-ledger.js';
import { tsFlags } from './ts-flags.js';

const kScript = new URL('./election-campaigner.ts', import.meta.url);
// Node 20 does not run the `--import tsx` a worker thread inherits in execArgv (bench/contended/run.ts):
// the worker registers tsx's hooks itself before importing the campaigner.
const kWorkerBoot = `import('tsx/esm/api').then((tsx) => tsx.register()).then(() => import(${JSON.stringify(kScript.href)}))`;

export type Report = FromCampaigner;
type Watcher = { match: (report: Report) => boolean; resolve: (report: Report) => void; timer?: NodeJS.Timeout };

export class Campaigner {
  /** Every report so far, in order. */
  readonly reports: Report[] = [];
  readonly who: number;
  readonly #send: (message: ToCampaigner) => void;
  readonly #watchers = new Set<Watcher>();
  readonly #ended: Promise<void>;
  readonly #kill: () => void;
  /** The child's pid; undefined for a thread. */
  readonly pid: number | undefined;

  /** A campaigner in a worker thread, writing its terms to the ledger in `input.ledger` itself. */
  static thread(input: CampaignerInput): Campaigner {
    const worker = new Worker(kWorkerBoot, { eval: true, workerData: input });
    const ended = new Promise<void>((resolve) => worker.once('exit', () => { resolve(); }));
    const campaigner = new Campaigner(input.who, (m) => { worker.postMessage(m); }, ended, () => { void worker.terminate(); }, undefined);
    worker.on('message', (report: Report) => { campaigner.#receive(report); });
    worker.on('error', (error) => { campaigner.#receive({ type: 'error', message: String(error.stack ?? error) }); });
    return campaigner;
  }

  /** A campaigner in a child process (one the test can SIGSTOP); its terms go to `ledger` from its messages. */
  static child(input: Omit<CampaignerInput, 'ledger'>, ledger: Ledger): Campaigner {
    const child: ChildProcess = fork(kScript, [JSON.stringify(input)], { execArgv: tsFlags(), stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const ended = new Promise<void>((resolve) => child.once('exit', () => { resolve(); }));
    const campaigner = new Campaigner(input.who, (m) => { child.send(m); }, ended, () => { child.kill('SIGKILL'); }, child.pid);
    const slots = new Map<number, number>();
    child.on('message', (raw) => {
      const report = revive(raw) as Report;
      if (report.type === 'leading') slots.set(report.term, ledger.begin(input.who, report.term, report.at, report.until));
      else if (report.type === 'until') ledger.until(slots.get(report.term)!, report.until);
      else if (report.type === 'lost') ledger.aborted(slots.get(report.term)!, report.at);
      campaigner.#receive(report);
    });
    return campaigner;
  }

  private constructor(who: number, send: (message: ToCampaigner) => void, ended: Promise<void>, kill: () => void, pid: number | undefined) {
    this.who = who;
    this.#send = send;
    this.#ended = ended;
    this.#kill = kill;
    this.pid = pid;
  }

  #receive(report: Report): void {
    this.reports.push(report);
    for (const watcher of [...this.#watchers]) {
      if (!watcher.match(report)) continue;
      this.#watchers.delete(watcher);
      watcher.resolve(report);
    }
  }

  send(message: ToCampaigner): void {
    this.#send(message);
  }

  /**
   * The first report (already received or still to come) of `type` that `match` accepts; rejects
   * after `ms`, or at once on an error report of the campaigner.
   */
  next<T extends Report['type']>(type: T, ms: number, match: (report: Extract<Report, { type: T }>) => boolean = () => true): Promise<Extract<Report, { type: T }>> {
    const accepts = (report: Report): boolean => report.type === 'error' || (report.type === type && match(report as Extract<Report, { type: T }>));
    const done = (report: Report): Extract<Report, { type: T }> => {
      if (report.type === 'error' && type !== 'error') throw new Error(`campaigner ${this.who}: ${report.message}`);
      return report as Extract<Report, { type: T }>;
    };
    const found = this.reports.find(accepts);
    if (found !== undefined) return Promise.resolve(found).then(done);
    return new Promise<Report>((resolve, reject) => {
      const watcher: Watcher = { match: accepts, resolve: (report) => { clearTimeout(watcher.timer); resolve(report); } };
      watcher.timer = setTimeout(() => {
        this.#watchers.delete(watcher);
        reject(new Error(`campaigner ${this.who}: no ${type} report within ${ms} ms`));
      }, ms);
      this.#watchers.add(watcher);
    }).then(done);
  }

  /** The reports of `type` so far. */
  all<T extends Report['type']>(type: T): Extract<Report, { type: T }>[] {
    return this.reports.filter((report): report is Extract<Report, { type: T }> => report.type === type);
  }

  /** Asks it to quit its Redlock and exit; killed if it has not within `ms`. */
  async close(ms = 5_000): Promise<void> {
    try {
      this.send({ type: 'quit' });
    } catch {
      // Already gone (its channel closed): nothing to ask.
    }
    const timer = setTimeout(this.#kill, ms);
    await this.#ended;
    clearTimeout(timer);
    // Reports nobody will send now: a race's losers (nextLeader) would otherwise hold the process up to their limit.
    for (const watcher of this.#watchers) clearTimeout(watcher.timer);
    this.#watchers.clear();
  }
}

/** Undoes the campaigner's bigint-as-string encoding for the IPC channel. */
function revive(raw: unknown): unknown {
  return JSON.parse(JSON.stringify(raw), (_, v: unknown) => (typeof v === 'string' && /^\d+n$/.test(v) ? BigInt(v.slice(0, -1)) : v));
}
