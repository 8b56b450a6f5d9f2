// CommonJS entry point of `pipelock/testing`: the ESM module itself through require(esm), as
// src/index.cts explains, so test runners that still `require` (Jest, Mocha in CJS) get one copy.
import testing = require('./testing/masters.js');
export = testing;
