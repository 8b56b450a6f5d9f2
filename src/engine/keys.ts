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

/** What a revoked-marker's key starts with; its value is the reason forceRelease() was given. */
const kRevokedHead = 'pipelock:revoked:';

/** The key of `resource`'s revoked-marker (forceRelease()), named as on a cluster member everywhere, so all agree. */
export function revokedKey(resource: string): string {
  return sideKey(kRevokedHead, resource, true);
}

/** Names as they are: clients without a key prefix (tests and the simulator name keys with it). */
export const kNoPrefix = new KeyNames('');
