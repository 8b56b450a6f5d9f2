import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { check, type LogState } from '../../bench/faults/check.js';
import { Ledger, WRITE_ACCEPTED, WRITE_NONE, WRITE_REJECTED, type LedgerRow } from '../../bench/faults/safety/ledger.js';

// The checker must catch what it claims to catch: each test feeds it evidence with a known flaw.
const test = suite('faults checker');
const times = { start: 0, faultStart: 100, faultEnd: 200, end: 400 };

let next = 0;
function row(resource: number, entry: number, exit: number, fence: number, extra: Partial<LedgerRow> = {}): LedgerRow {
  return { row: next++, resource, worker: 0, entry, exit, validEnd: entry + 1000, fence, write: WRITE_ACCEPTED, writeAt: entry + 1, commit: WRITE_NONE, stalledMs: 0, lost: 0, ...extra };
}

function logOf(rows: readonly LedgerRow[], resource = 0): LogState {
  const accepted = rows.filter((r) => r.resource === resource && r.write === WRITE_ACCEPTED).sort((a, b) => a.writeAt - b.writeAt);
  return { resource, fences: accepted.map((r) => r.fence), rejected: rows.filter((r) => r.resource === resource && r.write === WRITE_REJECTED).length };
}

test('sections one after another: no violation, no inversion, the log agrees', () => {
  const rows = [row(0, 10, 20, 1), row(0, 20, 30, 2), row(0, 210, 220, 3)];
  const figures = check(rows, [logOf(rows)], times, 1);
  assert.is(figures.violations, 0);
  assert.is(figures.fenceInversions, 0);
  assert.equal(figures.server, { accepted: 3, rejected: 0, ordered: true, agrees: true });
  assert.is(figures.recoveryMs, 10);
  assert.is(figures.longestGapMs, 400 - 210);
  assert.is(figures.longestGapAtMs, 20 - 100, "the first of two equal gaps");
});

test('a section entered while another holder is inside its window is a violation, with its details', () => {
  const rows = [row(0, 10, 50, 1, { worker: 1 }), row(0, 150, 160, 3), row(0, 40, 60, 2, { worker: 2 })];
  const figures = check(rows, [logOf(rows)], times, 1);
  assert.is(figures.violations, 1);
  assert.equal(figures.examples[0], { resource: 0, first: { worker: 1, fence: 1 }, second: { worker: 2, fence: 2 }, overlapMs: 10, atMs: -60 });
});

test('a holder past its validity is outside: a paused holder that exits late is no violation', () => {
  const paused = row(0, 10, 3000, 1, { validEnd: 500 });
  const rows = [paused, row(0, 600, 610, 2)];
  assert.is(check(rows, [logOf(rows)], times, 1).violations, 0);
  // …but the same entry inside the window is one.
  const early = [paused, row(0, 400, 410, 2)];
  assert.is(check(early, [logOf(early)], times, 1).violations, 1);
});

test('a later holder with a fence not above an earlier, ended one is an inversion', () => {
  const rows = [row(0, 10, 20, 5), row(0, 30, 40, 5), row(0, 50, 60, 4), row(1, 10, 20, 1)];
  assert.is(check(rows, [logOf(rows), logOf(rows, 1)], times, 2).fenceInversions, 2);
});

test('a holder that reached its section with no validity left is never inside', () => {
  const newer = row(0, 100, 110, 9);
  const late = row(0, 300, 310, 8, { validEnd: 300, write: WRITE_REJECTED, writeAt: 301 });
  const figures = check([newer, late], [logOf([newer, late])], times, 1);
  assert.equal([figures.enteredExpired, figures.violations, figures.fenceInversions], [1, 0, 0]);
});

test('a paused holder\'s stale write must be rejected: accepted is caught, rejected passes', () => {
  const newer = row(0, 600, 610, 2, { writeAt: 601 });
  const rejected = row(0, 10, 2500, 1, { validEnd: 500, stalledMs: 2000, write: WRITE_REJECTED, writeAt: 2400 });
  const ok = check([rejected, newer], [logOf([rejected, newer])], times, 1);
  assert.equal(ok.stalled, { holders: 1, stale: 1, staleRejected: 1 });
  const accepted = { ...rejected, write: WRITE_ACCEPTED } as LedgerRow;
  const bad = check([accepted, newer], [{ resource: 0, fences: [2, 1], rejected: 0 }], times, 1);
  assert.equal(bad.stalled, { holders: 1, stale: 1, staleRejected: 0 });
  assert.is(bad.server.ordered, false, 'the log holds a falling fence');
});

test('commits count with the entry writes; the log may repeat a fence (one holder\'s two writes) but never fall', () => {
  const rows = [row(0, 10, 20, 1, { commit: WRITE_ACCEPTED }), row(0, 30, 40, 2, { commit: WRITE_REJECTED })];
  const figures = check(rows, [{ resource: 0, fences: [1, 1, 2], rejected: 1 }], times, 1);
  assert.equal(figures.writes, { accepted: 3, rejected: 1, failed: 0 });
  assert.equal(figures.server, { accepted: 3, rejected: 1, ordered: true, agrees: true });
  assert.is(check(rows, [{ resource: 0, fences: [1, 2, 1], rejected: 1 }], times, 1).server.ordered, false);
});

test('a log whose tally differs from the ledger does not agree', () => {
  const rows = [row(0, 10, 20, 1), row(0, 30, 40, 2)];
  assert.is(check(rows, [{ resource: 0, fences: [1], rejected: 0 }], times, 1).server.agrees, false);
});

test('a resource never taken after the fault has no recovery', () => {
  const rows = [row(0, 10, 20, 1), row(1, 10, 20, 1), row(1, 250, 260, 2)];
  assert.is(check(rows, [logOf(rows), logOf(rows, 1)], times, 2).recoveryMs, null);
});

test('ledger: rows written by one view are read by another over the same memory; overflow is counted', () => {
  const ledger = Ledger.create(2);
  const other = new Ledger(ledger.buffer);
  const first = other.enter(3, 1, 500, 42);
  other.wrote(first, WRITE_REJECTED);
  other.committed(first, WRITE_ACCEPTED);
  other.exit(first);
  other.enter(0, 0, 0, 43);
  assert.is(other.enter(0, 0, 0, 44), -1);
  other.countAttempts(5);
  const rows = ledger.rows();
  assert.is(rows.length, 2);
  assert.equal([rows[0]!.resource, rows[0]!.worker, rows[0]!.fence, rows[0]!.write, rows[0]!.commit], [3, 1, 42, WRITE_REJECTED, WRITE_ACCEPTED]);
  assert.is(rows[1]!.commit, WRITE_NONE);
  assert.ok(rows[0]!.validEnd - rows[0]!.entry === 500 && rows[0]!.exit >= rows[0]!.entry && rows[0]!.writeAt >= rows[0]!.entry);
  assert.equal([ledger.overflow, ledger.attempts], [1, 5]);
});

test('ledger: a requested stall is taken by exactly one holder', () => {
  const ledger = Ledger.create(1);
  ledger.requestStall(250);
  assert.ok(ledger.stallPending);
  assert.is(ledger.takeStall(), 250);
  assert.is(ledger.takeStall(), 0);
  assert.not.ok(ledger.stallPending);
});

test('ledger: extend moves a validity end only later, never by a lease that ran out; lost marks the row', () => {
  const ledger = Ledger.create(2);
  const row = ledger.enter(0, 1, 1, 7);
  const entered = ledger.rows()[0]!.validEnd;
  // Past the 1 ms of validity the row entered with: a leader looking now has nothing left.
  const until = performance.now() + 3;
  while (performance.now() < until);
  ledger.extend(row, 0);
  assert.is(ledger.rows()[0]!.validEnd, entered, 'a lease with nothing left does not stretch the window to now');
  ledger.extend(row, 10_000);
  assert.ok(ledger.rows()[0]!.validEnd >= entered + 9_000);
  const moved = ledger.rows()[0]!.validEnd;
  ledger.extend(row, 1);
  assert.is(ledger.rows()[0]!.validEnd, moved, 'never earlier');
  assert.is(ledger.rows()[0]!.lost, 0);
  ledger.lost(row);
  assert.is(ledger.rows()[0]!.lost, 1);
});

test.run();
