import type { RunResult } from './result.js';

/**
 * Runs to be merged as one load did not measure at the same time: their throughputs would add up
 * to a load that never ran. Names the two files whose windows are furthest apart.
 */
export class DisjointWindowsError extends Error {
  override readonly name = 'DisjointWindowsError';
  readonly code = 'ERR_PIPELOCK_DISJOINT_WINDOWS';
  readonly files: readonly [string, string];

  constructor(files: readonly [string, string], message: string) {
    super(message);
    this.files = files;
  }
}

/** Merged windows overlapping less than this share of the shortest one are flagged. */
const kMinShare = 0.9;

/**
 * Checks that the measured windows of runs to be merged overlap, the way wrk2 or HdrHistogram logs
 * from several load generators are combined: each measures the same wall-clock interval (clocks
 * kept by NTP), and the histograms are added. Throws DisjointWindowsError when some two runs share
 * no instant; returns notes for partial overlap and for runs that recorded no window.
 */
export function checkWindows(files: readonly string[], results: readonly RunResult[]): string[] {
  const windows = results.flatMap((result, i) => (result.windows
    ?? []).map((w) => ({ file: files[i]!, from: Date.parse(w.from), to: Date.parse(w.to) })));
  const notes = results.flatMap((result, i) => (result.windows === undefined
    ? [`${files[i]!} records no measured window (written before pipelock recorded one): its overlap with the others is not checked`] : []));
  if (windows.length < 2) return notes;
  const latestStart = windows.reduce((a, b) => (b.from > a.from ? b : a));
  const earliestEnd = windows.reduce((a, b) => (b.to < a.to ? b : a));
  const overlapMs = earliestEnd.to - latestStart.from;
  if (overlapMs <= 0) {
    throw new DisjointWindowsError([earliestEnd.file, latestStart.file],
      `${earliestEnd.file} stopped measuring at ${new Date(earliestEnd.to).toISOString()}, before ${latestStart.file} started at `
        + `${new Date(latestStart.from).toISOString()}: ` +
      'their measured windows do not overlap, so the merge would add up loads that never ran together (start them with the same '
        + '--start-at, or pass --allow-disjoint to merge runs made one after another)');
  }
  const shortestMs = Math.min(...windows.map((w) => w.to - w.from));
  if (overlapMs < kMinShare * shortestMs) {
    notes.push(`the measured windows overlap for ${(overlapMs / 1000).toFixed(1)} s of the shortest one's `
      + `${(shortestMs / 1000).toFixed(1)} s ` +
      `(${latestStart.file} started last, ${earliestEnd.file} ended first): the summed throughput includes time when not every run was `
        + `loading the masters`);
  }
  return notes;
}
