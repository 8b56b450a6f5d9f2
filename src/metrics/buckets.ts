/**
 * Histogram buckets in seconds. An uncontended Redlock acquisition on a LAN takes a few hundred µs
 * to a few ms; a contended one waits whole retry delays (200 ms by default), and the textbook's
 * alert fires at a p99 wait of 1 s, so 1 is a boundary and the upper buckets reach the seconds a
 * retry budget can span. prom-client's defaults (5 ms … 10 s) would put every healthy acquisition in
 * the first bucket.
 */
export const WAIT_BUCKETS = Object.freeze([0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]);

/** One script call to a master: a local master answers in tens of µs, a remote one in ~0.2–2 ms; nodeTimeout defaults to 250 ms. */
export const CALL_BUCKETS = Object.freeze([0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1]);
