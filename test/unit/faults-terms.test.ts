import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkTerms } from '../../bench/faults/terms.js';
import { WRITE_ACCEPTED, WRITE_NONE, type LedgerRow } from '../../bench/faults/safety/ledger.js';

// The election scenario's checks must catch what they claim: each test feeds a known flaw.
const test = suite('faults election terms');

let next = 0;
function leader(resource: number, entry: number, term: number, extra: Partial<LedgerRow> = {}): LedgerRow {
  return { row: next++, resource, worker: 0, entry, exit: entry + 10, validEnd: entry + 1000, fence: term, write: WRITE_ACCEPTED, writeAt: entry + 1, commit: WRITE_NONE, stalledMs: 0, lost: 0, ...extra };
}

test('terms rising in order of entry, per election: no inversion', () => {
  const figures = checkTerms([leader(0, 30, 3), leader(0, 10, 1), leader(1, 20, 1), leader(0, 20, 2)]);
  assert.equal(figures, { leaderships: 4, lost: 0, termInversions: 0, pausedNotTold: 0 });
});

test('a term equal to or below an earlier leader\'s is an inversion, even when their windows do not touch', () => {
  assert.is(checkTerms([leader(0, 10, 5), leader(0, 5000, 5)]).termInversions, 1);
  assert.is(checkTerms([leader(0, 10, 5), leader(0, 20, 6), leader(0, 5000, 4)]).termInversions, 1);
});

test('a leader that entered with no lease left is not a leadership (its term may trail)', () => {
  const figures = checkTerms([leader(0, 10, 5), leader(0, 20, 4, { validEnd: 20 })]);
  assert.is(figures.leaderships, 1);
  assert.is(figures.termInversions, 0);
});

test('a leader paused past its lease must have been told of the loss', () => {
  assert.is(checkTerms([leader(0, 10, 1, { stalledMs: 2000, lost: 1 })]).pausedNotTold, 0);
  const figures = checkTerms([leader(0, 10, 1, { stalledMs: 2000 }), leader(0, 20, 2, { lost: 1 })]);
  assert.is(figures.pausedNotTold, 1);
  assert.is(figures.lost, 1);
});

test.run();
