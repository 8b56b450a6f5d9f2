import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { clockReading, judge, kSingleTradeoff, type ClockReading } from '../../tools/src/ops/doctor.js';
import type { MasterFacts } from '../../tools/src/ops/facts.js';
import { classify } from '../../tools/src/ops/inspect.js';

// The doctor's rules on made-up facts: the cases a test server cannot easily be put in.
const test = suite('doctor rules');
const options = { driftFactor: 0.01, nodeTimeoutMs: 250 };

function master(i: number, extra: Partial<MasterFacts> = {}): MasterFacts {
  return {
    url: `redis://m${i}:6379`, reachable: true, version: '7.2.0', runId: `run${i}`, role: 'master', replid: `repl${i}`, replicas: 0, rttMs: 0.3,
    config: { appendonly: 'yes', appendfsync: 'always', save: '', maxmemory: '0', 'maxmemory-policy': 'noeviction' }, aclDenied: [], ...extra,
  };
}
const three = (extra: Partial<MasterFacts> = {}): MasterFacts[] => [master(0), master(1), master(2, extra)];
const hazards = (masters: MasterFacts[], clocks: ClockReading[] = []): string[] => judge(masters, clocks, options).findings.filter((f) => f.severity === 'hazard').map((f) => f.check);
const warnings = (masters: MasterFacts[]): string[] => judge(masters, [], options).findings.filter((f) => f.severity === 'warning').map((f) => f.check);

test('a clock off by more than driftFactor beyond the sampling error is a hazard, within it is not', () => {
  const clock = (rate: number, uncertainty: number): ClockReading => ({ master: 'redis://m2:6379', rate, offsetMs: 0, uncertainty });
  assert.equal(hazards(three(), [clock(1.02, 0.001)]), ['clock-rate']);
  assert.equal(hazards(three(), [clock(0.98, 0.001)]), ['clock-rate']);
  assert.equal(hazards(three(), [clock(1.005, 0.001)]), []);
  assert.equal(hazards(three(), [clock(1.02, 0.02)]), [], 'a noisy sample proves nothing');
  // Two samples 1 s apart on the host's clock, 1.05 s apart on the server's: 5% fast.
  const reading = clockReading('m', { server: 10_000, mono: 100, wall: 10_000, errorMs: 0.5 }, { server: 11_050, mono: 1100, wall: 11_000, errorMs: 0.5 })!;
  assert.ok(Math.abs(reading.rate - 1.05) < 1e-9 && Math.abs(reading.uncertainty - 0.001) < 1e-9 && reading.offsetMs === 50);
});

test('one server or one Redis Cluster named as such is a warning with the trade-off, not a hazard', () => {
  const single = (facts: MasterFacts, flag: boolean) => judge([facts], [], { ...options, single: flag }).findings.filter((f) => f.severity !== 'info');
  assert.equal(hazards([master(0)]), ['master-count'], 'one server not named as chosen is still a hazard');
  const server = single(master(0), true);
  assert.equal(server.map((f) => [f.severity, f.check, f.message]), [['warning', 'master-count', 'one server, as given']]);
  assert.is(server[0]!.consequence, kSingleTradeoff);
  const cluster = single({ ...master(0), url: 'redis+cluster://c1:7000', clusterEnabled: true }, false);
  assert.equal(cluster.map((f) => [f.severity, f.check, f.message]), [['warning', 'master-count', 'one Redis Cluster, as given']]);
  assert.equal(hazards([{ ...master(0), clusterEnabled: true }, master(1), master(2)]), ['cluster'], 'a cluster node given as a standalone master');
});

test('eviction: only noeviction, or no maxmemory, keeps lock keys', () => {
  const with_ = (maxmemory: string, policy: string): string[] => hazards(three({ config: { ...master(2).config, maxmemory, 'maxmemory-policy': policy } }));
  assert.equal(with_('100000000', 'allkeys-lru'), ['eviction']);
  assert.equal(with_('100000000', 'volatile-ttl'), ['eviction']);
  assert.equal(with_('100000000', 'noeviction'), []);
  assert.equal(with_('0', 'allkeys-lru'), []);
});

test('persistence: fsync on every write is fine, anything else warns of the delayed-restart rule', () => {
  assert.equal(warnings(three()), []);
  assert.equal(warnings(three({ config: { ...master(2).config, appendfsync: 'everysec' } })), ['persistence']);
  assert.equal(warnings(three({ config: { ...master(2).config, appendonly: 'no', save: '3600 1' } })), ['persistence']);
  assert.equal(warnings(three({ config: undefined, configError: 'NOPERM' })), ['config']);
});

test('the set: one server twice is reported once; replication ids; a replica; counts', () => {
  assert.equal(hazards([master(0), master(1), { ...master(0), url: 'redis://alias:6379' }]), ['same-server']);
  assert.equal(hazards([master(0), master(1), { ...master(2), replid: 'repl0' }]), ['replicas']);
  assert.equal(warnings([master(0), master(1), { ...master(2), replid2: 'repl0' }]), ['replicas']);
  assert.equal(hazards(three({ role: 'slave', masterOf: 'm9:6379' })), ['replica-as-master']);
  assert.equal(hazards([master(0), master(1)]), ['master-count']);
  assert.equal(hazards([master(0), master(1), { url: 'redis://m2:6379', reachable: false, error: 'ECONNREFUSED' }]), ['reachable']);
  assert.equal(hazards([master(0), { url: 'x', reachable: false }, { url: 'y', reachable: false }]).sort(), ['quorum', 'reachable', 'reachable']);
  assert.equal(hazards(three({ clusterEnabled: true })), ['cluster']);
  assert.equal(hazards(three({ aclUser: 'app', aclDenied: ['EVALSHA'] })), ['acl']);
  assert.equal(warnings(three({ rttMs: 200 })), ['latency']);
});

test('inspect tells pipelock keys by name and value', () => {
  assert.is(classify('orders:1', 'AAAAAAAAAAAAAAAAAAAAAAAAAA1'), 'lock');
  assert.is(classify('orders:1', 'AAAAAAAAAAAAAAAAAAAAAAAAAA'), 'other', '26 characters is not a token');
  assert.is(classify('job:run:1', 'pipelock:done'), 'run-once-done');
  assert.is(classify('pipelock:fence:orders:1', '1700000000000000'), 'fence');
  assert.is(classify('job:attempts:1700000000000', '2'), 'run-once-attempts');
  assert.is(classify('counter', '2'), 'other');
});

test.run();
