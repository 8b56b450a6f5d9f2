import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { answeredByQuorum, decide, decideComplete, decideRelease, lostOnQuorum, LOST, quorumSize, quorumUnreachable, UNDECIDED, WON, type Tally } from '../../src/engine/quorum.js';
import { drift, validUntil } from '../../src/lifecycle/validity.js';
import { createToken, TOKEN_BYTES } from '../../src/protocol/token.js';
import { backoff, mayRetry, retryWait, spread } from '../../src/engine/schedule.js';

const test = suite('algorithm');

test('quorum is floor(n/2)+1', () => {
  assert.equal([1, 2, 3, 4, 5, 6, 7].map(quorumSize), [1, 2, 2, 3, 3, 4, 4]);
});

/** A tally of five masters (quorum 3): for, against, unreachable, stalled. */
const t = (votesFor: number, votesAgainst: number, votesUnreachable = 0, votesStalled = 0): Tally => ({ size: 5, quorum: 3, votesFor, votesAgainst, votesUnreachable, votesStalled });

test('decided as early as it is decided, both ways (n=5, q=3): against, unreachable and stalled all count against', () => {
  assert.is(decide(t(2, 2)), UNDECIDED);
  assert.is(decide(t(3, 0)), WON);
  assert.is(decide(t(3, 2)), WON);
  assert.is(decide(t(0, 3)), LOST);
  assert.is(decide(t(2, 3)), LOST);
  assert.is(decide(t(1, 2)), UNDECIDED);
  assert.is(decide(t(2, 1, 1, 1)), LOST);
  assert.is(decide(t(2, 0, 1, 1)), UNDECIDED);
});

test('release: settled by a quorum for or a quorum against; failures never decide it early', () => {
  assert.is(decideRelease(t(3, 0)), WON);
  assert.is(decideRelease(t(0, 3)), LOST);
  assert.is(decideRelease(t(2, 2, 1)), UNDECIDED);
  assert.is(decideRelease(t(0, 0, 5)), UNDECIDED);
  assert.is(decideRelease(t(1, 2, 0, 2)), UNDECIDED, 'stalled masters are waited for');
});

test('what else a tally says: lost on a quorum, answered by a quorum, quorum unreachable', () => {
  assert.ok(lostOnQuorum(t(0, 3)));
  assert.not.ok(lostOnQuorum(t(0, 2, 3)));
  assert.ok(answeredByQuorum(t(1, 2, 2)));
  assert.not.ok(answeredByQuorum(t(1, 1, 3)));
  assert.ok(quorumUnreachable(t(0, 0, 3)));
  assert.not.ok(quorumUnreachable(t(0, 3, 2)), 'three answered against: held, not unreachable');
  assert.is(decideComplete(t(3, 2)), WON);
  assert.is(decideComplete(t(2, 2, 1)), LOST);
});

test('drift = duration × driftFactor + 2 ms; validity = start + duration − drift', () => {
  assert.is(drift(10_000, 0.01), 102);
  assert.is(drift(1000, 0), 2);
  assert.is(validUntil(500, 10_000, 0.01), 500 + 10_000 - 102);
});

test('tokens: 160 bits, base64url, unique over many draws (pool refills)', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 5000; i++) {
    const token = createToken();
    assert.is(token.length, Math.ceil((TOKEN_BYTES * 8) / 6));
    assert.match(token, /^[A-Za-z0-9_-]+$/);
    seen.add(token);
  }
  assert.is(seen.size, 5000);
  assert.ok(TOKEN_BYTES * 8 >= 128);
});

test('retry wait stays within delay ± jitter and never below 0', () => {
  for (let i = 0; i < 1000; i++) {
    const w = retryWait(200, 100);
    assert.ok(w >= 100 && w <= 300, String(w));
    assert.ok(retryWait(10, 100) >= 0);
  }
  assert.is(retryWait(50, 0), 50);
});

test('retry count: attempts made vs retries allowed; -1 forever', () => {
  assert.ok(mayRetry(1, 1));
  assert.not.ok(mayRetry(2, 1));
  assert.not.ok(mayRetry(1, 0));
  assert.ok(mayRetry(1_000_000, -1));
});

test('split backoff doubles its window per collision; a spread stays below its bound', () => {
  for (let i = 0; i < 200; i++) {
    const first = backoff(1, 1);
    assert.ok(first >= 0 && first < 1, String(first));
    const fourth = backoff(1, 4);
    assert.ok(fourth >= 0 && fourth < 8, String(fourth));
    const early = spread(50);
    assert.ok(early >= 0 && early < 50, String(early));
  }
  // The window is the bound, not a fixed wait: some of 200 draws fall in its upper half.
  assert.ok(Array.from({ length: 200 }, () => backoff(1, 4)).some((ms) => ms >= 4));
  assert.is(spread(0), 0);
});

test.run();
