/**
 * One campaigner of the election tests, in a worker thread or a child process (like one app
 * process): its own Redlock and connections, driven by the test's messages. It writes its terms to
 * the ledger (test/helpers/election-ledger.ts) itself when it runs in a thread; a child process
 * has no shared memory, so there the test writes them from its messages, stamped here.
 */
import { subscribe } from 'node:diagnostics_channel';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { Redlock, type Term } from '../../src/index.js';
import { RENEWAL_CHANNEL, type RenewalMessage } from '../../src/metrics/index.js';
import { Ledger, now } from './election-ledger.js';

export interface CampaignerInput {
  readonly who: number;
  readonly urls: readonly string[];
  readonly name: string;
  readonly timing: { readonly lease: number; readonly renewDeadline: number; readonly retryPeriod: number };
  /** The ledger's memory; absent in a child process. */
  readonly ledger?: SharedArrayBuffer;
  /** While leading, "act" (report an action with the term) every this many ms; 0: never. */
  readonly actEveryMs: number;
  /** The Redlock's nodeTimeout. @default 300, which a busy 2-core machine running five threads keeps to */
  readonly nodeTimeout?: number;
}

export type ToCampaigner =
  | { readonly type: 'campaign'; readonly value: string }
  | { readonly type: 'resign' }
  | { readonly type: 'observe' }
  | { readonly type: 'block'; readonly ms: number }
  | { readonly type: 'quit' };

export type FromCampaigner =
  | { readonly type: 'ready' }
  | { readonly type: 'campaigning'; readonly at: bigint }
  | { readonly type: 'leading'; readonly term: number; readonly at: bigint; readonly until: bigint }
  | { readonly type: 'until'; readonly term: number; readonly until: bigint }
  | {
    readonly type: 'lost'; readonly term: number; readonly at: bigint; readonly reason: string; readonly message: string;
    /** The most this thread's timers ran late while it led (ms): a loaded machine's share of how late it stepped down. */
    readonly lagMs: number;
  }
  | { readonly type: 'act'; readonly term: number; readonly at: bigint }
  | { readonly type: 'resigned'; readonly term: number }
  | { readonly type: 'seen'; readonly term: number; readonly value: string; readonly at: bigint }
  | { readonly type: 'blocked'; readonly from: bigint; readonly to: bigint }
  | { readonly type: 'error'; readonly message: string };

const inThread = parentPort !== null;
const input: CampaignerInput = inThread ? (workerData as CampaignerInput) : (JSON.parse(process.argv[2]!) as CampaignerInput);
const post = (message: FromCampaigner): void => {
  if (inThread) parentPort!.postMessage(message);
  // bigint does not survive the IPC channel's JSON: sent as strings, revived by the test.
  else process.send!(JSON.parse(JSON.stringify(message, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))));
};
const ledger = input.ledger === undefined ? undefined : new Ledger(input.ledger);
const redlock = new Redlock(input.urls, { nodeTimeout: input.nodeTimeout ?? 300 });
const election = redlock.election(input.name, input.timing);
const stopObserving = new AbortController();
let current: Term | undefined;

const validUntil = (validity: number): bigint => now() + BigInt(Math.floor(validity * 1e6));
/** The leader's renewals as the library publishes them; a term's signal is not read to learn them. */
let renewed: ((validity: number) => void) | undefined;
subscribe(RENEWAL_CHANNEL, (message) => {
  const { lock, renewed: ok } = message as RenewalMessage;
  if (ok && lock.resources.includes(input.name)) renewed?.(lock.validity);
});

function lead(term: Term): void {
  current = term;
  const until = validUntil(term.validity);
  const slot = ledger?.begin(input.who, term.term, now(), until);
  const lag = monitorEventLoopDelay({ resolution: 5 });
  lag.enable();
  post({ type: 'leading', term: term.term, at: now(), until });
  // The validity end moves with each renewal. Reading term.validity or term.signal.aborted would
  // check the term's clock and abort it there, standing in for the library's own timers and loss events.
  renewed = (validity) => {
    if (slot !== undefined) ledger!.until(slot, validUntil(validity));
    else post({ type: 'until', term: term.term, until: validUntil(validity) });
  };
  const act = input.actEveryMs > 0
    // A careful leader: it checks its term's signal before each action, and acts only while it leads.
    ? setInterval(() => { if (!term.signal.aborted) post({ type: 'act', term: term.term, at: now() }); }, input.actEveryMs)
    : undefined;
  term.signal.addEventListener('abort', () => {
    const at = now();
    if (slot !== undefined) ledger!.aborted(slot, at);
    renewed = undefined;
    clearInterval(act);
    lag.disable();
    const reason: unknown = term.signal.reason;
    post({ type: 'lost', term: term.term, at, reason: reason instanceof Error ? reason.name : typeof reason,
      message: reason instanceof Error ? reason.message : '', lagMs: lag.max / 1e6 });
  }, { once: true });
}

async function handle(message: ToCampaigner): Promise<void> {
  switch (message.type) {
    case 'campaign':
      post({ type: 'campaigning', at: now() });
      lead(await election.campaign({ value: message.value }));
      return;
    case 'resign': {
      const term = current!;
      await term.resign();
      post({ type: 'resigned', term: term.term });
      return;
    }
    case 'observe':
      for await (const leader of election.observe({ signal: stopObserving.signal })) post({ type: 'seen', term: leader.term, value: leader.value, at: now() });
      return;
    case 'block': {
      // A blocked event loop: nothing of this campaigner runs until the wait ends (a long GC, a sync loop).
      const from = now();
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, message.ms);
      post({ type: 'blocked', from, to: now() });
      return;
    }
    case 'quit':
      stopObserving.abort();
      await redlock.quit();
      if (inThread) parentPort!.close();
      else process.disconnect();
  }
}

const receive = (message: ToCampaigner): void => {
  handle(message).catch((error: unknown) => { post({ type: 'error', message: String((error as Error).stack ?? error) }); });
};
if (inThread) parentPort!.on('message', receive);
else process.on('message', receive);
// Ready once connected: an observer's first read must not race the connections.
redlock.ready(30_000).then(() => { post({ type: 'ready' }); }, (error: unknown) => { post({ type: 'error', message: String(error) }); });
