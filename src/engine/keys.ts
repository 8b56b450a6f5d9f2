import { sideKey } from '../transport/cluster/slots.js';

/**
 * The key a master sees for a name pipelock uses: the clients' key prefix (ioredis `keyPrefix`, read in
 * src/transport/members.ts) before the name. pipelock's own connections send keys as given, so every key is named here.
 */
export class KeyNames {
  constructor(readonly prefix: string) {}

  /** One name as the server's key. */
  of(name: string): string {
    return this.prefix + name;
  }

  /** Several: the same array when there is no prefix (the hot path allocates nothing). */
  all(names: readonly string[]): readonly string[] {
    const prefix = this.prefix;
    return prefix === '' ? names : names.map((name) => prefix + name);
  }

  /** The key `head` + `resource` kept beside the lock key of `resource`, in its slot on a cluster member. */
  beside(head: string, resource: string, clustered: boolean): string {
    const prefix = this.prefix;
    return sideKey(prefix + head, resource, clustered, prefix + resource);
  }
}

/** What a revoked-marker's key starts with; its value is the revoked token, a newline and forceRelease()'s reason. */
const kRevokedHead = 'pipelock:revoked:';

/** The key of `resource`'s revoked-marker (forceRelease()), named as on a cluster member everywhere, so all agree. */
export function revokedKey(resource: string): string {
  return sideKey(kRevokedHead, resource, true);
}

/**
 * A revoked-marker's reason if it was left for the holder of `token`; undefined for another's. A later holder of the
 * same resource, lost within the marker's life, must not read as revoked. An empty token (a kind's set was deleted)
 * names every holder, as does a marker without one (written by an earlier version).
 */
export function revokedReasonFor(marker: string, token: string): string | undefined {
  const end = marker.indexOf('\n');
  if (end === -1) return marker;
  const revoked = marker.slice(0, end);
  return revoked === '' || revoked === token ? marker.slice(end + 1) : undefined;
}

/** Names as they are: clients without a key prefix (tests and the simulator name keys with it). */
export const kNoPrefix = new KeyNames('');
