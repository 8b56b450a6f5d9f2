/**
 * The election scenario's own checks, beside the shared ones of ./check.ts (which judge the leaders'
 * validity windows as sections and their terms as fences). Pure: it reads only the ledger rows,
 * written by the leaders (safety/election-section.ts), never by the library.
 */
import type { LedgerRow } from './safety/ledger.js';

export interface TermFigures {
  /** Leaderships that entered with lease left (those that may act). */
  readonly leaderships: number;
  /** Leaderships whose term's signal aborted with a loss before they resigned. */
  readonly lost: number;
  /** A leadership whose term is not above that of every leadership of the election entered before it. */
  readonly termInversions: number;
  /** Leaders whose thread was paused past their lease and were not told of the loss by their term's signal. */
  readonly pausedNotTold: number;
}

export function checkTerms(rows: readonly LedgerRow[]): TermFigures {
  const valid = rows.filter((row) => row.validEnd > row.entry).sort((a, b) => a.entry - b.entry);
  const top = new Map<number, number>();
  let termInversions = 0;
  for (const row of valid) {
    const highest = top.get(row.resource) ?? -Infinity;
    if (row.fence <= highest) termInversions++;
    top.set(row.resource, Math.max(highest, row.fence));
  }
  // A stall of 2× the lease outlasts the term, so its signal must abort with a loss, not a resign.
  const pausedNotTold = rows.filter((row) => row.stalledMs > 0 && row.lost === 0).length;
  return { leaderships: valid.length, lost: rows.filter((row) => row.lost > 0).length, termInversions, pausedNotTold };
}
