// CommonJS entry point (`require('pipelock')`): the ESM build itself, loaded with require(esm)
// (Node ≥ 20.19 / 22.12), so both entry points share one module instance. Two copies of the code
// would give two copies of every class, and an error thrown through one would fail `instanceof`
// against the other (the "dual package hazard": https://nodejs.org/api/packages.html#dual-package-hazard).
// node-redlock v5's CommonJS shape comes for free: `.default` is Redlock, beside the named exports.
import pipelock = require('./index.js');
export = pipelock;
