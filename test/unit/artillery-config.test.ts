import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EngineConfigError, readConfig, type Script } from '../../artillery-engine-pipelock/src/config.js';

// artillery-engine-pipelock reads config.engines.pipelock and its scenarios once: every bad value is
// an EngineConfigError naming the field and the rule; good ones become the driver's mix entries.
const test = suite('artillery engine config');

const target = 'redis://127.0.0.1:7001,redis://127.0.0.1:7002,redis://127.0.0.1:7003';
const script = (engine: Record<string, unknown>, scenarios: unknown[]): Script => ({ config: { target, engines: { pipelock: engine } }, scenarios });
const cycle = [{ name: 'a', engine: 'pipelock', flow: [{ cycle: {} }] }];

test('entries: one per cycle step, named after the scenario; other engines\' scenarios left alone; loops and thinks read', () => {
  const config = readConfig(script({ lockDuration: '2s' }, [
    { name: 'orders', engine: 'pipelock', weight: 3, flow: [{ cycle: { keys: 100, hold: '1ms' } }] },
    { name: 'web', flow: [{ get: { url: '/' } }] },
    { name: 'batch', engine: 'pipelock', flow: [{ think: 0.5 }, { loop: [{ cycle: { kind: 'semaphore', permits: 2 } }, { cycle: { operation: 'using' } }], count: 3 }] },
  ]), 'r1');
  assert.equal(config.entries.map((e) => e.name), ['orders', 'batch #1', 'batch #2']);
  assert.equal(config.entries.map((e) => [e.operation, e.kind]), [['acquire-release', 'mutex'], ['acquire-release', 'semaphore'], ['using', 'mutex']]);
  assert.equal([...config.flows.keys()], [0, 2]);
  assert.equal(config.flows.get(2), [{ kind: 'think', ms: 500 }, { kind: 'loop', count: 3, steps: [{ kind: 'cycle', entry: 1 }, { kind: 'cycle', entry: 2 }] }]);
  assert.is(config.lockMs, 2000);
  assert.is(config.prefix, 'pipelock-artillery:r1:');
  assert.equal(config.servers, target.split(','));
});

const bad: readonly (readonly [string, Script, string, RegExp])[] = [
  ['no masters', { config: { engines: { pipelock: {} } }, scenarios: cycle }, 'config.engines.pipelock.servers', /is missing/],
  ['a bad URL', script({ servers: ['http://x'] }, cycle), 'config.engines.pipelock.servers', /redis:\/\//],
  ['an unknown setting', script({ lockDurtion: '1s' }, cycle), 'config.engines.pipelock.lockDurtion', /is not a setting/],
  ['a bad time', script({ lockDuration: 'soon' }, cycle), 'config.engines.pipelock.lockDuration', /must be a time/],
  ['json without {worker}', script({ json: 'out.json' }, cycle), 'config.engines.pipelock.json', /\{worker\}/],
  ['no cycle anywhere', script({}, [{ name: 'web', flow: [{ get: {} }] }]), 'scenarios', /no cycle step/],
  ['an empty flow', script({}, [{ engine: 'pipelock', flow: [] }]), 'scenarios[0].flow', /non-empty list/],
  ['an unknown step', script({}, [{ engine: 'pipelock', flow: [{ get: {} }] }]), 'scenarios[0].flow[0].get', /is not a step/],
  ['a bad share', script({}, [{ engine: 'pipelock', flow: [{ cycle: { keys: { distribution: 'hot', count: 10, hot: 2, share: '180%' } } }] }]),
    'scenarios[0].flow[0].cycle.keys.share', /must be a share/],
  ['a hold past the lock', script({ lockDuration: '10ms' }, [{ engine: 'pipelock', flow: [{ cycle: { hold: '20ms' } }] }]), 'scenarios[0].flow[0].cycle.hold', /shorter than lockDuration/],
  ['a loop without count', script({}, [{ engine: 'pipelock', flow: [{ loop: [{ cycle: {} }] }] }]), 'scenarios[0].flow[0].count', /is missing/],
  ['two scenarios of one name', script({}, [...cycle, ...cycle]), 'scenarios', /give each scenario/],
];

for (const [what, given, field, rule] of bad) {
  test(`refused: ${what}`, () => {
    try {
      readConfig(given, 'r');
      assert.unreachable('accepted');
    } catch (error) {
      assert.instance(error, EngineConfigError);
      assert.is((error as EngineConfigError).code, 'ERR_PIPELOCK_ARTILLERY_CONFIG');
      assert.is((error as EngineConfigError).field, field);
      assert.match((error as Error).message, rule);
      assert.match((error as Error).message, `artillery-engine-pipelock: ${field} `);
    }
  });
}

test.run();
