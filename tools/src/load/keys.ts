import type { KeyDistribution } from './scenario.js';

/** Zipf's CDF is tabulated: past this many keys the table (8 bytes a key, per worker and entry) costs more than it tells. */
export const kMaxZipfKeys = 1_000_000;

/** A key index in [0, count) drawn from the distribution. */
export function keySampler(keys: KeyDistribution): () => number {
  switch (keys.distribution) {
    case 'uniform':
      return () => Math.floor(Math.random() * keys.count);
    case 'hot': {
      const { count, hot, share } = keys;
      const cold = count - hot;
      return () => (cold === 0 || Math.random() < share ? Math.floor(Math.random() * hot) : hot + Math.floor(Math.random() * cold));
    }
    case 'zipf':
      return zipf(keys.count, keys.exponent);
  }
}

/** Inverse-CDF sampling over a table of the cumulative weights 1 / (k + 1)^s, by binary search. */
function zipf(count: number, exponent: number): () => number {
  const cdf = new Float64Array(count);
  let total = 0;
  for (let k = 0; k < count; k++) cdf[k] = total += (k + 1) ** -exponent;
  return () => {
    const u = Math.random() * total;
    let lo = 0;
    let hi = count - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}
