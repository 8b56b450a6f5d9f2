import { ATTEMPT_LABELS } from '../load/contention.js';
import type { RunResult } from '../load/result.js';

/** Below this share of acquisitions retried, a run is not contended: a few collisions on many keys. */
const kContendedShare = 0.01;

/** Share of acquisitions won that took more than one attempt; undefined when attempts are unknown or nothing was won. */
export function retriedShare(result: RunResult): number | undefined {
  const waits = result.waits;
  if (waits === undefined) return undefined;
  const won = waits.firstAttempt.count + waits.retried.count;
  return won === 0 ? undefined : waits.retried.count / won;
}

/**
 * Whether the report shows the contention block and the retried / first-attempt rows: when
 * acquisitions retried often enough to matter, or the run had fewer keys than contenders (it was
 * meant to contend). Otherwise (keys ≫ contenders) they would only be noise around a few collisions.
 */
export function contended(result: RunResult): boolean {
  return (retriedShare(result) ?? 0) >= kContendedShare || result.fifo !== undefined;
}

function ms(us: number): string {
  return us >= 10_000 ? `${(us / 1000).toFixed(1)} ms` : `${(us / 1000).toFixed(2)} ms`;
}

function percent(share: number): string {
  return share >= 0.1 || share === 0 ? `${Math.round(100 * share)}%` : `${(100 * share).toFixed(1)}%`;
}

/** "0: 40%, 1: 18%, 2: 30%, 3–5: 11%, 6–10: 1%, >10: 0%": acquisitions won by attempts taken (0: passed on locally). */
export function attemptBuckets(buckets: readonly number[]): string {
  const won = buckets.reduce((a, b) => a + b, 0);
  return buckets.map((n, i) => `${ATTEMPT_LABELS[i]!}: ${won === 0 ? '-' : percent(n / won)}`).join(', ');
}

/** Where the contenders came from: "2 workers × 16 in flight" for one run, "2 runs" for a merge. */
function contenderOrigin(result: RunResult): string {
  const flags = result.hosts[0]?.flags;
  if (result.runs > 1 || flags === undefined) return `${result.runs} runs, each on its own keys`;
  return `${String(flags.workers)} worker${Number(flags.workers) === 1 ? '' : 's'} × ${String(flags.concurrency)} in flight`;
}

/**
 * The contention lines under the throughput: the one line every run has, and for a contended run
 * how many acquisitions retried and how often, how evenly the contenders shared the lock (Jain's
 * index, 1 = equally), and, with fewer keys than contenders, the wait a perfect FIFO queue would give.
 */
export function contentionLines(result: RunResult): string[] {
  const operation = result.runs === 1 ? result.hosts[0]?.flags.operation : undefined;
  const lines = [operation === 'using'
    ? 'contention    not observable through using(), which hides its Lock (ResourceLocked failures show under errors)'
    : `contention    ${result.contendedAcquires} acquires lost ${result.lostAttempts} attempts to another holder`];
  if (!contended(result) || operation === 'renew-hold') return lines;
  const { waits, fairness, fifo } = result;
  if (waits !== undefined) {
    lines.push(`  attempts    mean ${waits.attempts.mean.toFixed(2)}, max ${waits.attempts.max} per acquisition won; `
      + attemptBuckets(waits.attempts.buckets));
  }
  if (fairness !== undefined && fairness.jain !== null) {
    lines.push(`  fairness    Jain ${fairness.jain.toFixed(3)} over ${fairness.contenders} contenders (${contenderOrigin(result)}), `
      + `${fairness.min}–${fairness.max} acquisitions each`);
  }
  if (fifo !== undefined && fairness !== undefined) {
    lines.push(`  FIFO bound  ${ms(fifo.waitUs)} (${fairness.contenders} contenders ÷ ${result.throughput.toFixed(1)} handoffs/s); acquire `
      + `p99 is ${fifo.acquireP99Ratio.toFixed(2)}× it`);
  }
  return lines;
}
