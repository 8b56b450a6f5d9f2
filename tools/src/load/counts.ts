/** Sums of counts, as results and merges add them. */
interface OpenCounts {
  readonly late?: number;
  readonly due?: number;
  readonly lateStarts?: number;
}

/** late, due and lateStarts, summed, when some run was an open loop (files written before due was recorded have late only). */
export function openCounts(items: readonly OpenCounts[]): OpenCounts {
  if (!items.some((r) => r.late !== undefined)) return {};
  const late = sum(items, (r) => r.late ?? 0);
  if (!items.every((r) => r.late === undefined || r.due !== undefined)) return { late };
  return { late, due: sum(items, (r) => r.due ?? 0), lateStarts: sum(items, (r) => r.lateStarts ?? 0) };
}

export function addCounts(into: Record<string, number>, from: Readonly<Record<string, number>>): void {
  for (const [code, count] of Object.entries(from)) into[code] = (into[code] ?? 0) + count;
}

export function countOf(counts: Readonly<Record<string, number>>): number {
  let total = 0;
  for (const count of Object.values(counts)) total += count;
  return total;
}

export function sum<T>(items: readonly T[], of: (item: T) => number): number {
  let total = 0;
  for (const item of items) total += of(item);
  return total;
}
