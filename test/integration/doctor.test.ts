import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from '../helpers/cli.js';
import { connectAll, closeAll, eventually } from '../helpers/redis.js';
import { timed } from '../helpers/timeout.js';
import { startMasters, type LocalMasters } from '../../src/testing/masters.js';
import { kSingleTradeoff, runDoctor, type DoctorReport } from '../../tools/src/ops/doctor.js';
import { ACL_FEATURES, aclGrants, aclSetUser } from '../../src/index.js';

// `pipelock doctor` against real redis-servers configured with the hazards that break Redlock.
const test = suite('doctor');
const started: LocalMasters[] = [];
const options = { clockIntervalMs: 200, driftFactor: 0.01, nodeTimeoutMs: 250, key: 'pipelock:doctor' };

async function start(extraArgs: string[] = [], count = 1): Promise<LocalMasters> {
  const masters = await startMasters({ count, extraArgs });
  started.push(masters);
  return masters;
}

test.after(async () => {
  await Promise.all(started.map((m) => m.close()));
});

function checks(report: DoctorReport, severity?: string): string[] {
  return report.findings.filter((f) => severity === undefined || f.severity === severity).map((f) => `${f.check} ${f.master ?? '*'}`).sort();
}

test('three independent masters with fsync on every write: no hazard, no warning, exit 0', timed(60_000, async () => {
  const masters = await start(['--appendonly', 'yes', '--appendfsync', 'always'], 3);
  const report = await runDoctor(masters.urls, options);
  assert.equal(checks(report, 'hazard'), []);
  assert.equal(checks(report, 'warning'), []);
  assert.is(report.masters.length, 3);
  for (const m of report.masters) {
    assert.ok(m.reachable && m.version !== undefined && m.rttMs! > 0, JSON.stringify(m));
    assert.equal(m.aclDenied, [], 'the default user may run everything');
  }
  assert.is(report.clocks.length, 3, 'each clock read twice');
  for (const c of report.clocks) assert.ok(Math.abs(c.rate - 1) < 0.01 + c.uncertainty, `one host, one clock: rate ${c.rate}`);
  const run = await cli(['doctor', '--servers', masters.urls.join(','), '--clock-interval', '200ms', '--json']);
  assert.is(run.code, 0, run.stderr);
  assert.is((JSON.parse(run.stdout) as DoctorReport).hazards, 0);
}));

test('each hazard is found on the master that has it, with its consequence and fix; exit 1', timed(90_000, async () => {
  const evicting = await start(['--maxmemory', '100mb', '--maxmemory-policy', 'volatile-lru']);
  const primary = await start();
  const replica = await start(['--replicaof', '127.0.0.1', String(primary.masters[0]!.port)]);
  const cluster = await start(['--cluster-enabled', 'yes']);
  const acl = await start(['--user', 'app', 'on', '>secret', '~*', '+@all', '-evalsha']);
  // The replica shares its master's replication id once the first sync is done.
  const [probe] = await connectAll(replica.urls);
  await eventually(async () => (await probe!.info('replication')).includes('master_link_status:up'), 10_000, 'replica sync');
  await closeAll([probe!]);
  const aclUrl = acl.urls[0]!.replace('redis://', 'redis://app:secret@');
  const sameAsPrimary = `${primary.urls[0]!}/1`;
  const urls = [evicting.urls[0]!, primary.urls[0]!, replica.urls[0]!, cluster.urls[0]!, aclUrl, sameAsPrimary, 'redis://127.0.0.1:1'];
  const report = await runDoctor(urls, options);
  const hazards = checks(report, 'hazard');
  assert.equal(hazards, [
    `acl ${acl.urls[0]!.replace('redis://', 'redis://***@')}`,
    `cluster ${cluster.urls[0]!}`,
    `eviction ${evicting.urls[0]!}`,
    'reachable redis://127.0.0.1:1',
    `replica-as-master ${replica.urls[0]!}`,
    `replicas ${replica.urls[0]!}`,
    `same-server ${sameAsPrimary}`,
  ].sort());
  assert.ok(checks(report, 'warning').includes(`has-replicas ${primary.urls[0]!}`));
  for (const f of report.findings) assert.ok(f.consequence.length > 0 && f.fix.length > 0, `${f.check} says why and what to do`);
  const eviction = report.findings.find((f) => f.check === 'eviction')!;
  assert.match(eviction.consequence, /volatile/);
  const denied = report.findings.find((f) => f.check === 'acl')!;
  assert.match(denied.message, /user app may not run EVALSHA$/);
  assert.not.match(JSON.stringify(report), /secret/, 'credentials never printed');

  const run = await cli(['doctor', '--servers', [evicting.urls[0]!, primary.urls[0]!, cluster.urls[0]!].join(','), '--clock-interval', '200ms']);
  assert.is(run.code, 1, run.stderr);
  assert.match(run.stdout, /^HAZARD {2}eviction: /m);
  assert.match(run.stdout, /^HAZARD {2}cluster: /m);
  assert.match(run.stdout, /^ {8}fix: maxmemory-policy noeviction/m);
}));

test('fewer than 3 masters is a hazard; --strict fails on warnings; bad flags exit 2 naming the flag', timed(60_000, async () => {
  const two = await start([], 2);
  const report = await runDoctor(two.urls, options);
  assert.equal(checks(report, 'hazard'), ['master-count *']);
  const three = await start([], 3);
  const lenient = await runDoctor(three.urls, options);
  assert.equal([lenient.hazards, lenient.warnings], [0, 3], 'persistence off is a warning on each');
  const strict = await cli(['doctor', '--servers', three.urls.join(','), '--clock-interval', '100ms', '--strict']);
  assert.is(strict.code, 1);
  const bad = await cli(['doctor', '--servers', three.urls.join(','), '--drift-factor', '2']);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /--drift-factor must be a number between 0 and 1/);
}));

test('one server named as such (--single) is a warning with the trade-off, exit 0; --acl prints the ready ACL SETUSER line', timed(60_000, async () => {
  const one = await start(['--appendonly', 'yes', '--appendfsync', 'always']);
  const run = await cli(['doctor', '--servers', one.urls[0]!, '--single', '--clock-interval', '100ms', '--acl', 'app', '--key-pattern', 'locks:*']);
  assert.is(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /WARNING master-count: one server, as given/);
  assert.ok(run.stdout.includes(kSingleTradeoff), 'the trade-off, in the words of docs/deployments.md');
  assert.ok(run.stdout.split('\n').includes(aclSetUser('app', aclGrants(ACL_FEATURES, 'locks:*'))), run.stdout);
  const plain = await cli(['doctor', '--servers', one.urls[0]!, '--clock-interval', '100ms']);
  assert.is(plain.code, 1, 'one server not named as chosen is still a hazard');
}));

test.run();
