import { sideKey } from '../transport/cluster/slots.js';

/**
 * The key a master sees for a name pipelock uses (a resource, a fencing counter, an election's
 * record, a gate's turns): the clients' key prefix (ioredis `keyPrefix`, read once, in
 * src/transport/members.ts) before the name, as node-redlock v5's `evalsha` wrote it. pipelock's
 * own connections (the main ones and the watch connections) send keys as they are given, so every
 * key sent is named here: the engine's attempts and reads, the watches' reads, the gate's turns.
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

/** Names as they are: clients without a key prefix (tests and the simulator name keys with it). */
export const kNoPrefix = new KeyNames('');
