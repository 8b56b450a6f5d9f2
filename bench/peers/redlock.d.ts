// redlock 5.0.0-beta.2 ships dist/index.d.ts but its package.json "exports" has no "types"
// condition, so NodeNext resolution cannot find it: the part the benchmarks and
// test/integration/mixed-fleet.test.ts use, declared here.
declare module 'redlock' {
  import type { Cluster, Redis } from 'ioredis';

  export class ExecutionError extends Error {}
  export class Lock {
    release(): Promise<unknown>;
  }
  export default class Redlock {
    constructor(clients: Iterable<Redis | Cluster>, settings?: { retryCount?: number; retryDelay?: number; retryJitter?: number; automaticExtensionThreshold?: number });
    acquire(resources: string[], duration: number): Promise<Lock>;
    using<T>(resources: string[], duration: number, routine: (signal: AbortSignal & { error?: Error }) => Promise<T>): Promise<T>;
    quit(): Promise<void>;
  }
}

// node-redlock v4 (installed as the npm alias redlock4 beside v5) ships no types: what bench:peers uses.
declare module 'redlock4' {
  import type { Redis } from 'ioredis';

  interface LockError extends Error {
    attempts: number;
  }
  class Lock {
    resource: string | string[];
    value: string;
    expiration: number;
    unlock(): Promise<void>;
    extend(ttl: number): Promise<Lock>;
  }
  class Redlock {
    static LockError: new (message?: string) => LockError;
    static Lock: typeof Lock;
    constructor(clients: Redis[], options?: { driftFactor?: number; retryCount?: number; retryDelay?: number; retryJitter?: number });
    lock(resource: string | string[], ttl: number): Promise<Lock>;
    unlock(lock: Lock): Promise<void>;
    quit(): Promise<void>;
  }
  export default Redlock;
}
