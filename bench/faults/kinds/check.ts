/**
 * The independent checker of the kinds scenario (bench/faults/kinds/run.ts): it reads only the
 * interval log the contenders wrote — per holding, the resource, whether it was a writer, and the
 * instants (performance.now(), one process) after the acquisition resolved and before the release
 * was sent, cut at the lock's validity end — and sweeps it for the most holders at once.
 */

/** One holding: a semaphore permit or a read lock (`exclusive: false`), or a write lock. */
export interface Interval {
  readonly resource: string;
  readonly exclusive: boolean;
  readonly enter: number;
  readonly exit: number;
}

export interface Overlaps {
  /** The most holders of one resource at one instant. */
  readonly most: number;
  /** Instants (interval starts) at which a resource had more than `limit` holders, or a writer with anyone. */
  readonly violations: number;
}

/**
 * Sweeps the intervals of each resource in time order: `limit` holders at once at most (a
 * semaphore's permits; Infinity for readers), and an exclusive holder alone. An interval that
 * ends exactly when another starts does not overlap it (the release is sent before the next
 * acquisition can be granted, so equal instants are a handoff, not a violation).
 */
export function overlaps(intervals: readonly Interval[], limit: number): Overlaps {
  const byResource = new Map<string, Interval[]>();
  for (const interval of intervals) {
    const list = byResource.get(interval.resource);
    if (list === undefined) byResource.set(interval.resource, [interval]);
    else list.push(interval);
  }
  let most = 0;
  let violations = 0;
  for (const list of byResource.values()) {
    // Exits sort before entries at the same instant (a handoff).
    const events: [number, number, boolean][] = [];
    for (const { enter, exit, exclusive } of list) {
      if (exit <= enter) continue;
      events.push([enter, 1, exclusive], [exit, -1, exclusive]);
    }
    events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let holders = 0;
    let writers = 0;
    for (const [, delta, exclusive] of events) {
      holders += delta;
      if (exclusive) writers += delta;
      if (delta < 0) continue;
      most = Math.max(most, holders);
      if (holders > limit || (writers > 0 && holders > 1)) violations++;
    }
  }
  return { most, violations };
}
