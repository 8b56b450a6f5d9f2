import { channel } from 'node:diagnostics_channel';

/** Published for every master-level failure: `{ node, name, error }`. Costs nothing without subscribers. */
export const NODE_ERROR_CHANNEL = 'pipelock:node-error';
/** Published when an auto-extended lock is lost: `{ resources, error }`. */
export const LOCK_LOST_CHANNEL = 'pipelock:lock-lost';

const nodeError = channel(NODE_ERROR_CHANNEL);
const lockLost = channel(LOCK_LOST_CHANNEL);

export function publishNodeError(node: number, name: string, error: Error): void {
  if (nodeError.hasSubscribers) nodeError.publish({ node, name, error });
}

export function publishLockLost(resources: readonly string[], error: Error): void {
  if (lockLost.hasSubscribers) lockLost.publish({ resources, error });
}
