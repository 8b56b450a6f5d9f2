export { Redlock, Redlock as default, type RedlockOptions } from './redlock.js';
export { ReleaseResult } from './lifecycle/release-result.js';
export type { ForceReleaseOptions, ForceReleaseResult } from './engine/force-release.js';
export { Lock, type LockLostHandler, type LockOwner, type RedlockAbortSignal } from './lifecycle/lock.js';
export { Semaphore } from './kinds/semaphore.js';
export { ReadWriteLock } from './kinds/rwlock.js';
export { Election, type Leader, type CampaignOptions } from './kinds/election/election.js';
export { Term } from './kinds/election/term.js';
export type { ElectionOptions, ResolvedElectionOptions } from './kinds/election/options.js';
export type { ResolvedSettings, Settings } from './settings.js';
export type { CallSettings } from './lifecycle/lock.js';
export type { Routine } from './lifecycle/using.js';
export { kDefaults as defaultSettings } from './settings.js';
export type {
  RedisClient, MasterClient, IoredisClient, IoredisOptions, RedisClusterClient, IoredisClusterClient, ClusterShardNode,
    ClusterSeeds, MemberEntry,
} from './clients.js';
export {
  PipelockError, InvalidArgumentError, RedlockClosedError, ExecutionError, ResourceLockedError,
    MisconfigurationError, QuorumUnreachableError,
  LockExpiredError, LockLostError, EventLoopBlockedError, LockRevokedError, ExtensionLimitError, LockAbortedError,
    NodeUnavailableError, NodeTimeoutError,
  UnexpectedReplyError, OverloadedError, ReentrancyError, ResignedError, type ExecutionStats, type ExecutionAttempts, type NodeOutcome,
  type ExecutionResult, type ClientExecutionResult, type ClientVotedFor, type ClientVotedAgainst,
} from './errors.js';
export { NodeStalledError, NoScriptingError } from './errors.js';
export type { MemberCapabilities } from './engine/member-capabilities.js';
export { CAPABILITY_CHANNEL } from './engine/channels.js';
export { NODE_ERROR_CHANNEL, LOCK_LOST_CHANNEL } from './engine/channels.js';
export { runOnce, type RunOnceOptions, type RunOnceOutcome } from './recipes/run-once.js';
export { fencedWrite, FENCED_WRITE_SCRIPT } from './recipes/fenced-write.js';
export { ReentrantRedlock } from './recipes/reentrant/redlock.js';
export { ReentrantLock } from './recipes/reentrant/lock.js';
export { aclGrants, aclSetUser, ACL_FEATURES, type AclFeature, type AclGrants } from './acl.js';
