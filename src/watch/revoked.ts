import { sideKey } from '../transport/cluster/slots.js';

/** What a revoked-marker's key starts with; its value is the reason forceRelease() was given. */
const kHead = 'pipelock:revoked:';

/**
 * The key of `resource`'s revoked-marker, which forceRelease() sets beside the lock key it deletes
 * and a holder reads to learn why. Named as on a cluster member everywhere (in the resource's slot
 * where a name can be), so the writer and every reader agree without knowing the deployment.
 */
export function revokedKey(resource: string): string {
  return sideKey(kHead, resource, true);
}
