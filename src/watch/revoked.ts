import { sideKey } from '../transport/cluster/slots.js';

/** What a revoked-marker's key starts with; its value is the reason forceRelease() was given. */
const kHead = 'pipelock:revoked:';

/** The key of `resource`'s revoked-marker (forceRelease()), named as on a cluster member everywhere, so all agree. */
export function revokedKey(resource: string): string {
  return sideKey(kHead, resource, true);
}
