import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as pipelock from '../../src/index.js';

const test = suite('errors');

// Pinned: name, code and parentage are public contract; changing one is a breaking change.
const TABLE: [new (...args: never[]) => Error, () => Error, string, string, (new (...args: never[]) => Error)[]][] = [
  [pipelock.InvalidArgumentError, () => new pipelock.InvalidArgumentError('duration', 'must be positive', -1), 'InvalidArgumentError', 'ERR_PIPELOCK_INVALID_ARGUMENT', [pipelock.PipelockError]],
  [pipelock.RedlockClosedError, () => new pipelock.RedlockClosedError(), 'RedlockClosedError', 'ERR_PIPELOCK_CLOSED', [pipelock.PipelockError]],
  [pipelock.ExecutionError, () => new pipelock.ExecutionError('x'), 'ExecutionError', 'ERR_PIPELOCK_EXECUTION', [pipelock.PipelockError]],
  [pipelock.ResourceLockedError, () => new pipelock.ResourceLockedError('x'), 'ResourceLockedError', 'ERR_PIPELOCK_RESOURCE_LOCKED', [pipelock.ExecutionError, pipelock.PipelockError]],
  [pipelock.QuorumUnreachableError, () => new pipelock.QuorumUnreachableError('x'), 'QuorumUnreachableError', 'ERR_PIPELOCK_QUORUM_UNREACHABLE', [pipelock.ExecutionError]],
  [pipelock.LockExpiredError, () => new pipelock.LockExpiredError(), 'LockExpiredError', 'ERR_PIPELOCK_LOCK_EXPIRED', [pipelock.ExecutionError]],
  [pipelock.LockLostError, () => new pipelock.LockLostError('x'), 'LockLostError', 'ERR_PIPELOCK_LOCK_LOST', [pipelock.ExecutionError]],
  [pipelock.EventLoopBlockedError, () => new pipelock.EventLoopBlockedError('k', 10_000), 'EventLoopBlockedError', 'ERR_PIPELOCK_LOOP_BLOCKED', [pipelock.LockLostError, pipelock.ExecutionError]],
  [pipelock.LockRevokedError, () => new pipelock.LockRevokedError('k', 'stuck job'), 'LockRevokedError', 'ERR_PIPELOCK_LOCK_REVOKED', [pipelock.LockLostError, pipelock.ExecutionError]],
  [pipelock.ExtensionLimitError, () => new pipelock.ExtensionLimitError(3), 'ExtensionLimitError', 'ERR_PIPELOCK_EXTENSION_LIMIT', [pipelock.ExecutionError]],
  [pipelock.LockAbortedError, () => new pipelock.LockAbortedError('why'), 'LockAbortedError', 'ERR_PIPELOCK_ABORTED', [pipelock.ExecutionError]],
  [pipelock.NodeUnavailableError, () => new pipelock.NodeUnavailableError('h:1'), 'NodeUnavailableError', 'ERR_PIPELOCK_NODE_UNAVAILABLE', [pipelock.PipelockError]],
  [pipelock.NodeTimeoutError, () => new pipelock.NodeTimeoutError('h:1', 50), 'NodeTimeoutError', 'ERR_PIPELOCK_NODE_TIMEOUT', [pipelock.PipelockError]],
  [pipelock.UnexpectedReplyError, () => new pipelock.UnexpectedReplyError('h:1', 'x'), 'UnexpectedReplyError', 'ERR_PIPELOCK_UNEXPECTED_REPLY', [pipelock.PipelockError]],
  [pipelock.OverloadedError, () => new pipelock.OverloadedError(10, 500, 250), 'OverloadedError', 'ERR_PIPELOCK_OVERLOADED', [pipelock.ExecutionError, pipelock.PipelockError]],
  [pipelock.MisconfigurationError, () => new pipelock.MisconfigurationError('x', { reason: 'noperm', master: 'h:1', keys: ['k'], fix: 'y' }), 'MisconfigurationError', 'ERR_PIPELOCK_MISCONFIGURED', [pipelock.ExecutionError, pipelock.PipelockError]],
  [pipelock.ReentrancyError, () => new pipelock.ReentrancyError('x', ['a']), 'ReentrancyError', 'ERR_PIPELOCK_REENTRANCY', [pipelock.PipelockError]],
  [pipelock.ResignedError, () => new pipelock.ResignedError('leader', 7), 'ResignedError', 'ERR_PIPELOCK_RESIGNED', [pipelock.PipelockError]],
  [pipelock.NodeStalledError, () => new pipelock.NodeStalledError('h:1'), 'NodeStalledError', 'ERR_PIPELOCK_NODE_STALLED', [pipelock.PipelockError]],
];

for (const [Class, make, name, code, parents] of TABLE) {
  test(`${name}: name, code, instanceof`, () => {
    const error = make();
    if (!(error instanceof pipelock.PipelockError)) throw new Error('not a PipelockError');
    assert.instance(error, Class);
    assert.instance(error, Error);
    for (const parent of parents) assert.instance(error, parent);
    assert.is(error.name, name);
    assert.is(error.code, code);
    assert.type(error.message, 'string');
    assert.ok(error.message.length > 0);
  });
}

test('InvalidArgumentError names the argument, the rule and what it got', () => {
  const error = new pipelock.InvalidArgumentError('settings.retryCount', 'must be an integer ≥ -1', 1.5);
  assert.is(error.argument, 'settings.retryCount');
  assert.is(error.rule, 'must be an integer ≥ -1');
  assert.is(error.message, 'settings.retryCount must be an integer ≥ -1, got 1.5');
});

test('LockAbortedError keeps the signal reason as cause; extend-expired keeps node-redlock text', () => {
  const reason = new Error('stop');
  assert.is(new pipelock.LockAbortedError(reason).cause, reason);
  assert.is(new pipelock.LockExpiredError().message, 'Cannot extend an already-expired lock.');
});

test('OverloadedError says how deep the queue is, how long the wait and the budget, and that nothing was sent', () => {
  const error = new pipelock.OverloadedError(12_345, 812.4, 250);
  assert.is(error.queueDepth, 12_345);
  assert.is(error.waitMs, 812.4);
  assert.is(error.budgetMs, 250);
  assert.equal(error.nodes, []);
  assert.equal(error.attempts, []);
  assert.match(error.message, /overloaded: 12345 key\(s\) of acquisitions queued ahead .* about 812 ms .* allows 250 ms; nothing was sent/);
});

test.run();
