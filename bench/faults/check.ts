/**
 * The independent checker of a safety run. It reads only evidence the lock client cannot shape:
 * the shared-memory ledger (each holder's entry, exit and validity on the process-wide monotonic
 * clock) and the fenced log server's own state. Pure, so the unit tests can feed it violations.
 */
import { WRITE_ACCEPTED, WRITE_FAILED, WRITE_REJECTED, type LedgerRow } from './safety/ledger.js';

/** What the fenced log server holds for one resource. */
export interface LogState {
  readonly resource: number;
  /** The fences of its accepted entries, in the order it accepted them. */
  readonly fences: readonly number[];
  /** Writes it rejected as stale (its own count). */
  readonly rejected: number;
}

/** Shared-clock instants of the run. */
export interface RunTimes {
  readonly start: number;
  readonly faultStart: number;
  readonly faultEnd: number;
  readonly end: number;
}

/** Two holders of one resource inside their validity windows at once. */
export interface Violation {
  readonly resource: number;
  readonly first: { readonly worker: number; readonly fence: number };
  readonly second: { readonly worker: number; readonly fence: number };
  /** How long both were inside, ms. */
  readonly overlapMs: number;
  /** When the second entered, ms after the fault started (negative: before). */
  readonly atMs: number;
}

export interface SafetyFigures {
  readonly acquisitions: number;
  /**
   * Holders that reached their section with no validity left: a lock handed over just before
   * their thread stalled. Their window is empty, so they are never inside (and their writes are stale).
   */
  readonly enteredExpired: number;
  /** Sections that began while another holder of the resource was still inside its validity window. */
  readonly violations: number;
  readonly examples: readonly Violation[];
  /** A later holder (entered after an earlier one's section ended) with a fence not above the earlier one's. */
  readonly fenceInversions: number;
  /** What the holders' fenced writes (two per section: on entry and the commit) got back. */
  readonly writes: { readonly accepted: number; readonly rejected: number; readonly failed: number };
  /**
   * The log server's own tally. `ordered`: the fences it accepted never fall per resource, so it
   * never took a stale write; `agrees`: its counts match the holders' ledger.
   */
  readonly server: { readonly accepted: number; readonly rejected: number; readonly ordered: boolean; readonly agrees: boolean };
  /**
   * Holders whose thread was blocked inside the section on purpose (a GC pause); `stale`: those
   * that wrote after a newer holder's write was accepted, each of which the log must reject.
   */
  readonly stalled: { readonly holders: number; readonly stale: number; readonly staleRejected: number };
  /** From the fault's end to the first entry after it, the slowest resource; null if one never recovered. */
  readonly recoveryMs: number | null;
  /** The longest time any resource went without a new holder, ms, and when it began (ms after the fault began). */
  readonly longestGapMs: number;
  readonly longestGapAtMs: number;
}

const kExamples = 5;

function end(row: LedgerRow): number {
  // A holder is inside until it leaves or its validity runs out, whichever is first; a holder that
  // never recorded its exit (the run was stopped mid-section) is taken to stay until the latter.
  return row.exit > 0 ? Math.min(row.exit, row.validEnd) : row.validEnd;
}

function byResource(rows: readonly LedgerRow[]): Map<number, LedgerRow[]> {
  const groups = new Map<number, LedgerRow[]>();
  for (const row of rows) {
    let group = groups.get(row.resource);
    if (group === undefined) groups.set(row.resource, (group = []));
    group.push(row);
  }
  for (const group of groups.values()) group.sort((a, b) => a.entry - b.entry);
  return groups;
}

export function check(rows: readonly LedgerRow[], logs: readonly LogState[], times: RunTimes, resources: number): SafetyFigures {
  const groups = byResource(rows);
  let violations = 0;
  let inversions = 0;
  let stalledStale = 0;
  let stalledRejected = 0;
  let recovery: number | null = 0;
  let longestGap = 0;
  let longestGapAt = 0;
  const examples: Violation[] = [];

  for (let resource = 0; resource < resources; resource++) {
    const group = groups.get(resource) ?? [];
    // Only holders with validity left at entry were ever inside.
    const inside = group.filter((row) => row.validEnd > row.entry);
    // Overlaps: in entry order, a section that begins before the furthest end seen so far.
    let furthest: LedgerRow | undefined;
    for (const row of inside) {
      if (furthest !== undefined && row.entry < end(furthest)) {
        violations++;
        if (examples.length < kExamples) {
          examples.push({
            resource,
            first: { worker: furthest.worker, fence: furthest.fence },
            second: { worker: row.worker, fence: row.fence },
            overlapMs: Math.min(end(furthest), end(row)) - row.entry,
            atMs: row.entry - times.faultStart,
          });
        }
      }
      if (furthest === undefined || end(row) > end(furthest)) furthest = row;
    }

    // Fencing: every holder that entered after another's section ended has a larger fence.
    const byEnd = [...inside].sort((a, b) => end(a) - end(b));
    let ended = 0;
    let topFence = -Infinity;
    for (const row of inside) {
      while (ended < byEnd.length && end(byEnd[ended]!) <= row.entry) topFence = Math.max(topFence, byEnd[ended++]!.fence);
      if (row.fence <= topFence) inversions++;
    }

    // Stalled holders: was a newer holder's write accepted before theirs? Then theirs is stale.
    for (const row of group) {
      if (row.stalledMs <= 0 || row.writeAt <= 0) continue;
      const newer = group.some((other) => other.write === WRITE_ACCEPTED && other.fence > row.fence && other.writeAt < row.writeAt);
      if (!newer) continue;
      stalledStale++;
      if (row.write === WRITE_REJECTED) stalledRejected++;
    }

    // Availability: the first entry after the fault ended, and the longest stretch without an entry.
    const after = group.find((row) => row.entry >= times.faultEnd);
    if (after === undefined) recovery = null;
    else if (recovery !== null) recovery = Math.max(recovery, after.entry - times.faultEnd);
    let previous = times.start;
    for (const at of [...group.map((row) => row.entry), times.end]) {
      if (at - previous > longestGap) {
        longestGap = at - previous;
        longestGapAt = previous - times.faultStart;
      }
      previous = Math.max(previous, at);
    }
  }

  let accepted = 0;
  let rejected = 0;
  let failed = 0;
  for (const row of rows) {
    for (const result of [row.write, row.commit]) {
      if (result === WRITE_ACCEPTED) accepted++;
      else if (result === WRITE_REJECTED) rejected++;
      else if (result === WRITE_FAILED) failed++;
    }
  }
  let serverAccepted = 0;
  let serverRejected = 0;
  let ordered = true;
  for (const log of logs) {
    serverAccepted += log.fences.length;
    serverRejected += log.rejected;
    for (let i = 1; i < log.fences.length; i++) if (log.fences[i]! < log.fences[i - 1]!) ordered = false;
  }

  return {
    acquisitions: rows.length,
    enteredExpired: rows.filter((row) => row.validEnd <= row.entry).length,
    violations,
    examples,
    fenceInversions: inversions,
    writes: { accepted, rejected, failed },
    server: { accepted: serverAccepted, rejected: serverRejected, ordered, agrees: serverAccepted === accepted && serverRejected === rejected },
    stalled: { holders: rows.filter((row) => row.stalledMs > 0).length, stale: stalledStale, staleRejected: stalledRejected },
    recoveryMs: recovery,
    longestGapMs: longestGap,
    longestGapAtMs: longestGapAt,
  };
}
