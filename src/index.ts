export { Redlock, Redlock as default, type RedlockOptions } from './redlock.js';
export { ReleaseResult } from './release-result.js';
export { Lock, type LockLostHandler, type RedlockAbortSignal } from './lock.js';
export { Semaphore } from './kinds/semaphore.js';
export { ReadWriteLock } from './kinds/rwlock.js';
export type { CallSettings, Settings } from './options.js';
export { kDefaults as defaultSettings } from './options.js';
export type { RedisClient, MasterClient, IoredisClient } from './redis-client.js';
export {
  PipelockError, InvalidArgumentError, RedlockClosedError, ExecutionError, ResourceLockedError, QuorumUnreachableError,
  LockExpiredError, LockLostError, ExtensionLimitError, LockAbortedError, NodeUnavailableError, NodeTimeoutError,
  UnexpectedReplyError, OverloadedError, ReentrancyError, type ExecutionStats, type NodeOutcome,
} from './errors.js';
export { NodeStalledError } from './errors.js';
export { NODE_ERROR_CHANNEL, LOCK_LOST_CHANNEL } from './diagnostics.js';
export { runOnce, type RunOnceOptions, type RunOnceOutcome } from './run-once.js';
export { fencedWrite, FENCED_WRITE_SCRIPT } from './fencing.js';
export { ReentrantRedlock } from './kinds/reentrant.js';
export { ReentrantLock } from './kinds/reentrant-lock.js';
