// CommonJS entry point of `pipelock/protocol`: the ESM module itself through require(esm), as
// src/index.cts explains, so both entry points hand out the same frozen constants.
import protocol = require('./protocol/index.js');
export = protocol;
