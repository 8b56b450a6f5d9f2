/**
 * Clock drift allowance: duration × driftFactor, plus 2 ms for Redis's 1 ms expiry precision
 * (the specification's figure; node-redlock uses the same so validity matches it).
 */
export function drift(duration: number, driftFactor: number): number {
  return Math.round(duration * driftFactor) + 2;
}

/**
 * The monotonic instant at which a lock stops being valid: start + duration − drift. `start` is
 * `performance.now()` read as the attempt's first command was written (src/engine/coalescer.ts),
 * before any master could set a key, so the whole round trip is subtracted
 * (validity = duration − elapsed − drift).
 */
export function validUntil(start: number, duration: number, driftFactor: number): number {
  return start + duration - drift(duration, driftFactor);
}
