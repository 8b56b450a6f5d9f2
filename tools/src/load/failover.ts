/**
 * `pipelock loadtest --kind election`: failover time of redlock.election(). Three campaigners, each a
 * Redlock of its own in this process (one clock for every instant), campaign on one election; the
 * leader is killed --hold ms after it leads, alternately by a crash (its Redlock quit without
 * resigning: its keys stay until the lease runs out, and a fresh campaigner takes its place) and by
 * resign(). Failover is from the death to the next leader's first action (its campaign() resolved).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { PipelockError, Redlock, type Term } from 'pipelock';
import type { LoadOptions } from './options.js';

export const kCampaigners = 3;
export const DEATHS = ['crash', 'resign'] as const;
export type Death = (typeof DEATHS)[number];

export interface FailoverSample {
  readonly death: Death;
  /** From the death to the next leader's first action, ms. */
  readonly failoverMs: number;
  /** What the dead leader's lease had left when it died (term.validity), ms. */
  readonly leaseLeftMs: number;
}

export interface FailoverStats {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly min: number;
}

export interface FailoverResult {
  readonly kind: 'pipelock-failover';
  readonly settings: {
    readonly masters: number;
    readonly campaigners: number;
    readonly lease: number;
    readonly renewDeadline: number;
    readonly retryPeriod: number;
    readonly holdMs: number;
    readonly kills: number;
  };
  readonly crash: FailoverStats;
  /** A crash's failover less the lease its leader had left: the wake-up after the keys expired. */
  readonly crashAfterLease: FailoverStats;
  readonly resign: FailoverStats;
  readonly samples: readonly FailoverSample[];
  /** Failed campaigns and deaths with no successor in time, by code. */
  readonly errors: Readonly<Record<string, number>>;
  readonly interrupted: boolean;
}

/** Nearest-rank percentiles of `values`. */
export function stats(values: readonly number[]): FailoverStats {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? Number.NaN;
  return { count: sorted.length, p50: rank(0.5), p99: rank(0.99), max: sorted.at(-1) ?? Number.NaN, min: sorted[0] ?? Number.NaN };
}

interface Leadership {
  readonly campaigner: Campaigner;
  readonly term: Term;
  /** performance.now() when campaign() resolved: the leader's first action. */
  readonly at: number;
}

/** One campaigner: campaigns again whenever its leadership ends, until it is crashed or the run stops. */
class Campaigner {
  readonly redlock: Redlock;
  readonly #quit = new AbortController();

  constructor(urls: readonly string[], name: string, lease: number, onLead: (leadership: Leadership) => void,
    onError: (error: unknown) => void, stop: AbortSignal) {
    this.redlock = new Redlock([...urls]);
    const election = this.redlock.election(name, { lease });
    const signal = AbortSignal.any([this.#quit.signal, stop]);
    const ended = (): boolean => signal.aborted;
    void (async () => {
      while (!signal.aborted) {
        try {
          const term = await election.campaign({ signal });
          onLead({ campaigner: this, term, at: performance.now() });
          await new Promise((resolve) => { term.signal.addEventListener('abort', resolve, { once: true }); });
        } catch (error) {
          if (!ended()) onError(error);
        }
      }
    })();
  }

  /** A crash: the Redlock quits (renewals stop, connections close) and nothing is resigned. */
  crash(): Promise<void> {
    this.#quit.abort();
    return this.redlock.quit();
  }
}

export async function runFailover(options: LoadOptions, urls: readonly string[], name: string, stop: AbortSignal): Promise<FailoverResult> {
  const lease = options.lockMs;
  const errors: Record<string, number> = {};
  const count = (code: string): void => {
    errors[code] = (errors[code] ?? 0) + 1;
  };
  let waiting: ((leadership: Leadership) => void) | undefined;
  let current: Leadership | undefined;
  const onLead = (leadership: Leadership): void => {
    current = leadership;
    waiting?.(leadership);
  };
  const onError = (error: unknown): void => {
    count(error instanceof PipelockError ? error.code : 'other');
  };
  const start = (): Campaigner => new Campaigner(urls, name, lease, onLead, onError, stop);
  const campaigners = new Set(Array.from({ length: kCampaigners }, start));
  // No successor within this long is a failure to report, not a wait to sit out.
  const patience = 3 * lease + 5_000;
  const next = (): Promise<Leadership | undefined> => new Promise((resolve) => {
    const timer = setTimeout(() => { resolve(undefined); }, patience);
    const onStop = (): void => { resolve(undefined); };
    stop.addEventListener('abort', onStop, { once: true });
    waiting = (leadership) => {
      clearTimeout(timer);
      stop.removeEventListener('abort', onStop);
      resolve(leadership);
    };
  });
  const stopped = (): boolean => stop.aborted;
  const samples: FailoverSample[] = [];
  const resolved = campaigners.values().next().value!.redlock.election(name, { lease }).options;
  try {
    let leader = current ?? await next();
    for (let kill = 0; kill < 2 * options.kills && leader !== undefined && !stop.aborted; kill++) {
      await delay(options.holdMs);
      if (leader.term.signal.aborted) {
        // Lost on its own (a loaded machine let its lease run out): not a death this run chose.
        count('lost-before-kill');
      } else {
        const death = DEATHS[kill % 2]!;
        const successor = next();
        const leaseLeftMs = leader.term.validity;
        const diedAt = performance.now();
        if (death === 'crash') {
          campaigners.delete(leader.campaigner);
          void leader.campaigner.crash();
          campaigners.add(start());
        } else {
          leader.term.resign().catch(onError);
        }
        const after = await successor;
        if (after === undefined) {
          if (!stopped()) count(`no-leader-after-${death}`);
          break;
        }
        if (after.term.term <= leader.term.term) count('term-not-rising');
        samples.push({ death, failoverMs: after.at - diedAt, leaseLeftMs });
      }
      leader = current?.term.signal.aborted === false ? current : await next();
    }
  } finally {
    // The last leader resigns, so that no key of the run outlives it (a crash's keys expire with its lease).
    await current?.term.resign().catch(() => undefined);
    await Promise.all([...campaigners].map((c) => c.crash().catch(() => undefined)));
  }
  const of = (death: Death): FailoverSample[] => samples.filter((s) => s.death === death);
  return {
    kind: 'pipelock-failover',
    settings: { masters: urls.length, campaigners: kCampaigners, lease, renewDeadline: resolved.renewDeadline,
      retryPeriod: resolved.retryPeriod, holdMs: options.holdMs, kills: options.kills },
    crash: stats(of('crash').map((s) => s.failoverMs)),
    crashAfterLease: stats(of('crash').map((s) => s.failoverMs - s.leaseLeftMs)),
    resign: stats(of('resign').map((s) => s.failoverMs)),
    samples,
    errors,
    interrupted: stop.aborted,
  };
}
