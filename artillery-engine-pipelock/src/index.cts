// Artillery loads an engine with require('artillery-engine-<name>') and calls `new` on what it gets:
// the class itself. The ES module build is loaded with require(esm) (Node ≥ 20.19 / 22.12).
import engine = require('./engine.js');
export = engine.PipelockEngine;
