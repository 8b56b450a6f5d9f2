import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { beatPeriod } from '../../src/lifecycle/worker/renewer.js';

// renewal 'worker': each beat wakes an idle process (4 a second were most of the worker's idle cost), and the
// period bounds how early a blocked loop can stop renewals (a stretch under 7/8 of the bound never does).
const test = suite('worker heartbeat period');

test('an eighth of heartbeatBound, whatever its size', () => {
  assert.is(beatPeriod(10_000), 1250);
  assert.is(beatPeriod(60_000), 7500);
  assert.is(beatPeriod(1000), 125);
});

test('at least 5 ms for a tiny bound', () => {
  assert.is(beatPeriod(1), 5);
  assert.is(beatPeriod(40), 5);
});

test.run();
