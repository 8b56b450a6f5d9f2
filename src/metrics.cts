// CommonJS entry point of `pipelock/metrics`: the ESM module itself through require(esm), as
// src/index.cts explains, so the channels and classes are the ones `pipelock` publishes with.
import metrics = require('./metrics/index.js');
export = metrics;
