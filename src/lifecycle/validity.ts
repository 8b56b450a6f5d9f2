/** Clock drift allowance: duration × driftFactor + 2 ms for Redis's 1 ms expiry precision, as the spec and node-redlock. */
export function drift(duration: number, driftFactor: number): number {
  return Math.round(duration * driftFactor) + 2;
}

/**
 * The monotonic instant a lock stops being valid: start + duration − drift, `start` read as the first command was
 * written (src/engine/coalescer.ts), so the whole round trip is subtracted.
 */
export function validUntil(start: number, duration: number, driftFactor: number): number {
  return start + duration - drift(duration, driftFactor);
}
