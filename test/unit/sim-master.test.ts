import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConnectionClosedError, RedisReplyError, SimMaster, type Push, type Reply, type SimConnection } from '../../sim/master/index.js';
import { formatG, parseLongLong, parseScore, parseScoreBound } from '../../sim/master/numbers.js';
import { printfFloat } from '../../sim/master/printf.js';
import { generate } from '../../sim/diff/generate.js';
import { SimSide } from '../../sim/diff/sim.js';
import { LEAN_SCRIPT } from '../../src/protocol/lean-script.js';
import { SCRIPTS, scriptLoadArgs } from '../../src/protocol/calls.js';

// The simulated master on its own: what the differential tests against redis-server cannot pin
// (they keep away from the exact ms a key expires, and run one real clock), and its plumbing.
const test = suite('simulated master');

function master(start = 1_000_000): { master: SimMaster; clock: { now: number } } {
  const clock = { now: start };
  return { master: new SimMaster({ now: () => clock.now }), clock };
}

function pushes(conn: SimConnection): [Push, boolean][] {
  const seen: [Push, boolean][] = [];
  conn.onPush = (push, afterReply) => seen.push([push, afterReply]);
  return seen;
}

function error(reply: Reply): string {
  assert.instance(reply, RedisReplyError);
  return (reply as RedisReplyError).message;
}

test('a key lives through its last ms (PTTL 0) and is gone the next, pushed once to its reader', () => {
  const { master: m, clock } = master(1000.25);
  const main = m.connect();
  const watch = m.connect();
  const seen = pushes(watch);
  assert.is(main.exec(['SET', 'k', 'v', 'PX', '100']), 'OK');
  watch.exec(['CLIENT', 'TRACKING', 'on']);
  assert.is(watch.exec(['GET', 'k']), 'v');
  clock.now = 1100.999;
  assert.is(main.exec(['PTTL', 'k']), 0);
  assert.equal(seen, []);
  clock.now = 1101;
  assert.is(main.exec(['EXISTS', 'k']), 0);
  assert.equal(seen, [[['invalidate', ['k']], false]]);
  assert.is(main.exec(['EXISTS', 'k']), 0);
  assert.is(seen.length, 1, 'the next change of an untracked key pushes nothing');
});

test('TIME reads the virtual clock to the µs', () => {
  const { master: m } = master(1_795_712_284_341.802);
  assert.equal(m.connect().exec(['TIME']), ['1795712284', '341802']);
});

test('a connection hears of its own change after its reply, the others at once in id order', () => {
  const { master: m } = master();
  const [a, b, c] = [m.connect(), m.connect(), m.connect()];
  const order: string[] = [];
  for (const [name, conn] of [['a', a], ['b', b], ['c', c]] as const) {
    conn.exec(['CLIENT', 'TRACKING', 'on']);
    conn.exec(['GET', 'k']);
    conn.onPush = (push, afterReply) => order.push(`${name}:${String(push[1])}:${afterReply}`);
  }
  assert.is(b.exec(['SET', 'k', '1']), 'OK');
  assert.equal(order, ['a:k:false', 'c:k:false', 'b:k:true']);
});

test('tracking: RESP2 is never pushed; FLUSHALL pushes null; entries outlive TRACKING off, as in Redis', () => {
  const { master: m } = master();
  const resp2 = m.connect({ resp: 2 });
  const watch = m.connect();
  const seen2 = pushes(resp2);
  const seen = pushes(watch);
  for (const conn of [resp2, watch]) {
    conn.exec(['CLIENT', 'TRACKING', 'on']);
    conn.exec(['GET', 'k']);
  }
  watch.exec(['CLIENT', 'TRACKING', 'off']);
  watch.exec(['CLIENT', 'TRACKING', 'on']);
  m.connect().exec(['SET', 'k', 'v']);
  assert.equal(seen, [[['invalidate', ['k']], false]]);
  m.flushAll();
  assert.equal(seen[1], [['invalidate', null], false]);
  assert.equal(seen2, []);
});

test('a script\'s read remembers every key it declared for its tracking caller (Redis 7.0)', () => {
  const { master: m } = master();
  const watch = m.connect();
  const seen = pushes(watch);
  watch.exec(['CLIENT', 'TRACKING', 'on']);
  watch.exec(['EVAL', "redis.call('GET', KEYS[1]) return 1", '2', 'read', 'declared']);
  m.connect().exec(['SET', 'declared', 'v']);
  assert.equal(seen, [[['invalidate', ['declared']], false]]);
});

test('dropConnections and restart: closed connections throw, scripts and keys are gone', () => {
  const { master: m } = master();
  const conn = m.connect();
  let closed = 0;
  conn.onClose = () => closed++;
  conn.exec(scriptLoadArgs(SCRIPTS[0]!));
  conn.exec(['SET', 'k', 'v']);
  m.restart();
  assert.is(closed, 1);
  assert.not.ok(conn.open);
  assert.throws(() => conn.exec(['GET', 'k']), (thrown: unknown) => thrown instanceof ConnectionClosedError);
  const again = m.connect();
  assert.is(again.exec(['GET', 'k']), null);
  assert.is(error(again.exec(['EVALSHA', SCRIPTS[0]!.sha, '0', 'A'])), 'NOSCRIPT No matching script. Please use EVAL.');
  assert.is(again.exec(scriptLoadArgs(SCRIPTS[0]!)), SCRIPTS[0]!.sha);
});

test('expireAll deletes what is past its time, each key pushed; dump shows live keys only', () => {
  const { master: m, clock } = master();
  const main = m.connect();
  const watch = m.connect();
  const seen = pushes(watch);
  watch.exec(['CLIENT', 'TRACKING', 'on']);
  main.exec(['SET', 'short', 'v', 'PX', '10']);
  main.exec(['SET', 'long', 'v', 'PX', '1000']);
  watch.exec(['MGET', 'short', 'long']);
  clock.now += 20;
  assert.equal(m.dump().map((key) => key.key), ['long']);
  assert.equal(seen, []);
  assert.is(m.expireAll(), 1);
  assert.equal(seen, [[['invalidate', ['short']], false]]);
});

test('seed plants a key of any type: pipelock\'s reads see it as another type', () => {
  const { master: m } = master();
  const conn = m.connect();
  m.seed('r', { type: 'list', value: ['x'] });
  assert.is(conn.exec(['TYPE', 'r']), 'list');
  assert.is(error(conn.exec(['GET', 'r'])), 'WRONGTYPE Operation against a key holding the wrong kind of value');
  conn.exec(scriptLoadArgs(SCRIPTS[0]!));
  assert.equal(conn.exec(['EVALSHA', SCRIPTS[0]!.sha, '1', 'r', 'tok', 'R']), [0], 'LEAN_SCRIPT\'s pcall GET reads it as not ours');
  assert.ok(LEAN_SCRIPT.includes("pcall('GET'"));
});

test('deterministic: a sequence replays identically on a fresh master on the same clock', () => {
  const run = (): string => {
    const side = new SimSide();
    const out: unknown[] = [];
    let us = 1_795_712_284_341_802;
    for (const step of generate(7, { mode: 'main', steps: 80, baseUs: us })) {
      if (step.kind === 'sleep') continue;
      side.setClock((us += 1500));
      out.push(side.run(step), side.pushes.w0.splice(0), side.pushes.w1.splice(0));
    }
    return JSON.stringify([out, side.dump()]);
  };
  assert.is(run(), run());
});

test('a Valkey 9 master: SET IFEQ and DELIFEQ as Valkey documents them (not yet proven on a Valkey)', () => {
  const clock = { now: 1_000 };
  const conn = new SimMaster({ now: () => clock.now, flavor: 'valkey-9' }).connect();
  assert.is(conn.exec(['SET', 'k', 'new', 'IFEQ', 'old']), null, 'no key: not created');
  conn.exec(['SET', 'k', 'old']);
  assert.is(conn.exec(['SET', 'k', 'new', 'IFEQ', 'other']), null);
  assert.is(conn.exec(['SET', 'k', 'new', 'IFEQ', 'old', 'PX', '500']), 'OK');
  assert.equal([conn.exec(['GET', 'k']), conn.exec(['PTTL', 'k'])], ['new', 500]);
  assert.is(error(conn.exec(['SET', 'k', 'v', 'NX', 'IFEQ', 'new'])), 'ERR syntax error');
  conn.exec(['HSET', 'h', 'f', 'v']);
  assert.is(error(conn.exec(['SET', 'h', 'v', 'IFEQ', 'v'])), 'WRONGTYPE Operation against a key holding the wrong kind of value');
  assert.is(error(conn.exec(['DELIFEQ', 'h', 'v'])), 'WRONGTYPE Operation against a key holding the wrong kind of value');
  assert.equal([conn.exec(['DELIFEQ', 'k', 'old']), conn.exec(['DELIFEQ', 'k', 'new']), conn.exec(['DELIFEQ', 'k', 'new'])], [0, 1, 0]);
  const redis = master().master.connect();
  assert.is(error(redis.exec(['SET', 'k', 'v', 'IFEQ', 'v'])), 'ERR syntax error', 'Redis 7.0 knows no IFEQ');
  assert.is(error(redis.exec(['DELIFEQ', 'k', 'v'])), 'ERR unknown command \'DELIFEQ\', with args beginning with: \'k\' \'v\' ');
});

test('numbers: Redis\'s integer and score parsing', () => {
  assert.equal(['0', '12', '-3', '9223372036854775807', '-9223372036854775808'].map(parseLongLong), [0n, 12n, -3n, 2n ** 63n - 1n, -(2n ** 63n)]);
  assert.equal(['007', '+1', ' 1', '-0', '', '9223372036854775808', '1.0'].map(parseLongLong), Array(7).fill(undefined));
  assert.equal(['1', '0x10', '-inf', '1e3', '.5'].map(parseScore), [1, 16, -Infinity, 1000, 0.5]);
  assert.equal([' 1', '1 ', 'nan', '1e400', ''].map(parseScore), Array(5).fill(undefined));
  assert.equal(parseScoreBound('(1.5'), { value: 1.5, exclusive: true });
  assert.equal(parseScoreBound(''), { value: 0, exclusive: false });
  assert.is(parseScoreBound('x'), undefined);
});

test('numbers: printf as glibc prints doubles (exact value, half to even)', () => {
  const cases: [string, string][] = [
    [formatG(0.1, 17), '0.10000000000000001'], [formatG(1e20, 17), '1e+20'], [formatG(-0, 17), '-0'], [formatG(1e-7, 17), '9.9999999999999995e-08'],
    [formatG(2 ** 53, 14), '9.007199254741e+15'], [formatG(12345678901234.5, 14), '12345678901234'], [formatG(Infinity, 17), 'inf'],
    [printfFloat(2.5, 'f', '', 0, 0), '2'], [printfFloat(3.5, 'f', '', 0, 0), '4'], [printfFloat(0.125, 'f', '', 0, 2), '0.12'],
    [printfFloat(12345.678, 'e'), '1.234568e+04'], [printfFloat(1e6, 'g'), '1e+06'], [printfFloat(-5, 'f', '0', 8, 2), '-0005.00'],
    [printfFloat(1.5, 'g', '#'), '1.50000'], [printfFloat(999.5, 'f', '', 0, 0), '1000'],
  ];
  for (const [got, want] of cases) assert.is(got, want);
});

test.run();
