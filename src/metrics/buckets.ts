/** Histogram buckets in seconds around 1 s, the usual p99 alert: prom-client's defaults lump healthy acquisitions. */
export const WAIT_BUCKETS = Object.freeze([0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]);

/** One script call to a master: a local master answers in tens of µs, a remote one in ~0.2–2 ms; nodeTimeout defaults to 250 ms. */
export const CALL_BUCKETS = Object.freeze([0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1]);
