import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AGAINST, Attempt } from '../../src/engine/attempt.js';
import { LOST, UNDECIDED, WON } from '../../src/engine/quorum.js';
import { OP_ACQUIRE } from '../../src/protocol/opcodes.js';
import { GateProbe, gateOf, gateOrder } from '../../src/waiting/gate.js';

const test = suite('gate');

test('every process listing the same masters, in any order, picks the same gate for a key', () => {
  const names = ['10.0.0.3:6379', '10.0.0.1:6379', '10.0.0.5:6379', '10.0.0.2:6379', '10.0.0.4:6379'];
  const shuffled = [names[3]!, names[0]!, names[4]!, names[2]!, names[1]!];
  const a = gateOrder(names);
  const b = gateOrder(shuffled);
  for (const key of ['jobs', 'orders:17', 'contended:hot', '', 'ü']) {
    assert.is(names[gateOf(a, key)], shuffled[gateOf(b, key)], key);
  }
});

test('keys spread over the masters', () => {
  const order = gateOrder(['a', 'b', 'c', 'd', 'e']);
  const seen = new Set<number>();
  for (let i = 0; i < 100; i++) seen.add(gateOf(order, `key:${i}`));
  assert.is(seen.size, 5);
});

/** An acquisition of two keys over 5 masters and its probe to a gate; `passed` records each pass. */
function gated(): { a: Attempt; probe: GateProbe; passed: Attempt[] } {
  const a = new Attempt(OP_ACQUIRE, ['a', 'b'], 'tok', '1000', 3, 0, 50, false, 5);
  const passed: Attempt[] = [];
  const probe = new GateProbe(a, 'pipelock:queue:a', '2000 50000 id', { sendToPending: (main) => { passed.push(main); } });
  return { a, probe, passed };
}

test('a gated attempt refused at its gate is lost at once, the other masters never asked', async () => {
  const { a, probe, passed } = gated();
  probe.settle(2, 0);
  assert.is(a.decision, LOST);
  assert.is(passed.length, 0);
  assert.is(a.pending, 0, 'nothing left to answer: its cleanup sends nothing');
  assert.equal(a.votes, [AGAINST, AGAINST, AGAINST, AGAINST, AGAINST]);
  await a.done;
});

test('a refusal because it is another\'s turn is kept in the attempt\'s counts', () => {
  const { a, probe } = gated();
  probe.settle(1, -1);
  assert.is(a.decision, LOST);
  assert.is(a.counts?.[1], -1);
});

test('a gated attempt granted at its gate goes to the others, which decide it', () => {
  const { a, probe, passed } = gated();
  probe.settle(0, 1);
  assert.equal(passed, [a]);
  probe.settle(0, 1);
  assert.is(passed.length, 1, 'passed once');
  a.settle(1, 2);
  assert.is(a.decision, UNDECIDED);
  a.settle(3, 2);
  assert.is(a.decision, WON);
});

test('a gate that cannot answer is no arbiter: the attempt goes to the others', () => {
  const { a, probe, passed } = gated();
  probe.settle(4, new Error('down'));
  assert.is(passed.length, 1);
  assert.is(a.decision, UNDECIDED);
});

test('the probe\'s clock is its attempt\'s: sent at the gate, the attempt\'s validity counts from there', () => {
  const { a, probe } = gated();
  probe.sent(123);
  assert.is(a.start, 123);
  assert.is(a.deadline, 173);
});

test.run();
