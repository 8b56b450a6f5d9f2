/**
 * Clock drift allowance: duration × driftFactor, plus 2 ms for Redis's 1 ms expiry precision
 * (the specification's figure; node-redlock uses the same so validity matches it).
 */
export function drift(duration: number, driftFactor: number): number {
  return Math.round(duration * driftFactor) + 2;
}

/**
 * The monotonic instant at which a lock stops being valid: start + duration − drift. `start` is
 * `performance.now()` taken before the first command of the attempt was queued, so the elapsed
 * time of the whole round trip is subtracted (validity = duration − elapsed − drift).
 */
export function validUntil(start: number, duration: number, driftFactor: number): number {
  return start + duration - drift(duration, driftFactor);
}
