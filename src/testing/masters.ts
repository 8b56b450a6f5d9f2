/**
 * Independent redis-server masters on free local ports, for tests, load tests and benchmarks
 * (shipped as `pipelock/testing`). Each can be stopped, paused, restarted empty and flushed.
 */
import { RedisClient } from '@redis/client';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { MasterStartError, MasterStateError } from './errors.js';
import { resolveMastersOptions, resolveRestartOptions, type ResolvedMastersOptions, type StartMastersOptions } from './options.js';
import { freePort } from './ports.js';
import { trackDir, untrackDir } from './reaper.js';
import { masterUrl } from './server-args.js';
import { isPortTaken, launchServer, type Launched } from './server.js';

export { InvalidOptionError, MasterStartError, MasterStateError, RedisServerNotFoundError } from './errors.js';
export { serverArgs } from './server-args.js';
export type { StartMastersOptions } from './options.js';

/** One local `redis-server` started by `startMasters`, with the faults a test can cause on it. */
export interface LocalMaster {
  /** Its place in `masters` (and in `urls`). */
  readonly index: number;
  /** The address it binds and clients connect to. */
  readonly host: string;
  /** Fixed for the master's life, kept across restart(). */
  readonly port: number;
  /** `redis://host:port`. */
  readonly url: string;
  /** undefined while stopped. */
  readonly pid: number | undefined;
  /** false after stop() until restart() resolves. */
  readonly running: boolean;
  /** True between pause() and resume(). */
  readonly paused: boolean;
  /** SIGKILL; resolves when the process has exited. */
  stop(): Promise<void>;
  /** SIGSTOP: the server keeps its connections but answers nothing. */
  pause(): void;
  /** SIGCONT. */
  resume(): void;
  /**
   * Stops if running, waits `delayMs`, starts again on the same port, empty, and waits for PING;
   * with `redisServer`, that binary from then on (a failover onto an older or newer server).
   */
  restart(options?: { delayMs?: number; redisServer?: string }): Promise<void>;
  /** FLUSHALL. */
  flush(): Promise<void>;
}

/** The masters `startMasters` started; `await using` or close() stops them. */
export interface LocalMasters extends AsyncDisposable {
  /** Each master, to stop, pause, restart or flush. */
  readonly masters: readonly LocalMaster[];
  /** Their URLs, in order: what `new Redlock(urls)` takes. */
  readonly urls: readonly string[];
  /** Stops every server and removes its temp dir; idempotent. */
  close(): Promise<void>;
}

// The machine's own Redis lives here; never hand it out even when it happens to be free.
const kSharedRedisPort = 6379;
const kPortAttempts = 5;
const kFlushConnectTimeoutMs = 2_000;
/** Ports held by masters of this process, so two concurrent starts never pick the same one. */
const claimedPorts = new Set<number>();
// createClient() rebuilds its whole command class whenever its options differ from the previous
// call's (a single-entry cache keyed on all options, url included): ~40 ms for each master in turn.
// A factory made once and reused pays that once.
let clientFactory: ReturnType<typeof RedisClient.factory> | undefined;

/**
 * Starts `count` independent local masters on free ports (never 6379), each in a temp dir, and resolves once all answer PING.
 * For tests, examples and load tests: `import { startMasters } from 'pipelock/testing'`.
 */
export async function startMasters(options?: StartMastersOptions): Promise<LocalMasters> {
  const config = resolveMastersOptions(options);
  const results = await Promise.allSettled(Array.from({ length: config.count }, (_, i) => Master.start(i, config)));
  const started = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) {
    await Promise.all(started.map((master) => master.dispose()));
    throw failed.reason;
  }
  return new Masters(started);
}

class Masters implements LocalMasters {
  readonly masters: readonly Master[];
  readonly urls: readonly string[];
  #closing: Promise<void> | undefined;

  constructor(masters: readonly Master[]) {
    this.masters = Object.freeze([...masters]);
    this.urls = Object.freeze(masters.map((master) => master.url));
  }

  close(): Promise<void> {
    this.#closing ??= Promise.all(this.masters.map((master) => master.dispose())).then(() => undefined);
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

class Master implements LocalMaster {
  readonly index: number;
  readonly host: string;
  readonly port: number;
  readonly url: string;
  #config: ResolvedMastersOptions;
  readonly #dir: string;
  #server: Launched | undefined;
  #paused = false;
  #closed = false;
  #restarting: Promise<void> | undefined;

  static async start(index: number, config: ResolvedMastersOptions): Promise<Master> {
    const dir = await mkdtemp(join(tmpdir(), 'pipelock-'));
    trackDir(dir);
    try {
      for (let attempt = 1; ; attempt++) {
        const port = await freePort(config.host);
        const mayRetry = attempt < kPortAttempts;
        if (port === kSharedRedisPort || claimedPorts.has(port)) {
          if (mayRetry) continue;
          throw new MasterStartError(`was not started: ${kPortAttempts} ports offered were all taken`, port, '');
        }
        claimedPorts.add(port);
        try {
          return new Master(index, config, dir, port, await launchServer({ ...config, port, dir }));
        } catch (error) {
          claimedPorts.delete(port);
          // freePort released the port before redis-server bound it; someone else may have won it.
          if (mayRetry && isPortTaken(error)) continue;
          throw error;
        }
      }
    } catch (error) {
      untrackDir(dir);
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  private constructor(index: number, config: ResolvedMastersOptions, dir: string, port: number, server: Launched) {
    this.index = index;
    this.host = config.host;
    this.port = port;
    this.url = masterUrl(config.host, port);
    this.#config = config;
    this.#dir = dir;
    this.#attach(server);
  }

  get pid(): number | undefined {
    return this.#server?.pid;
  }

  get running(): boolean {
    return this.#server !== undefined && this.#restarting === undefined;
  }

  get paused(): boolean {
    return this.#paused;
  }

  async stop(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return;
    // The child is unref'd while it runs; awaiting its exit must keep this process alive.
    server.child.ref();
    if (this.#paused) server.child.kill('SIGCONT');
    server.child.kill('SIGKILL');
    await server.exited;
  }

  pause(): void {
    this.#assertServing('pause');
    if (this.#paused) return;
    this.#server!.child.kill('SIGSTOP');
    this.#paused = true;
  }

  resume(): void {
    if (this.#server === undefined || !this.#paused) return;
    this.#server.child.kill('SIGCONT');
    this.#paused = false;
  }

  // async, so that a bad option rejects like every other failure here instead of throwing; all
  // before the first await still runs synchronously, so two restarts cannot both begin.
  async restart(options?: { delayMs?: number; redisServer?: string }): Promise<void> {
    const { delayMs, redisServer } = resolveRestartOptions(options);
    if (this.#closed) throw this.#stateError('restart', 'its masters are closed');
    if (this.#restarting) throw this.#stateError('restart', 'a restart is already in progress');
    const restarting = this.#restart(delayMs, redisServer).finally(() => {
      this.#restarting = undefined;
    });
    this.#restarting = restarting;
    return restarting;
  }

  async flush(): Promise<void> {
    this.#assertServing('flush');
    if (this.#paused) throw this.#stateError('flush', 'it is paused');
    clientFactory ??= RedisClient.factory();
    const client = clientFactory({
      url: this.url,
      socket: { reconnectStrategy: false, connectTimeout: kFlushConnectTimeoutMs },
    });
    // Connection errors reach us through the awaited calls; without a listener they would throw.
    client.on('error', () => undefined);
    await client.connect();
    try {
      await client.flushAll();
    } finally {
      client.destroy();
    }
  }

  /** Stops the server for good and removes its temp dir. */
  async dispose(): Promise<void> {
    this.#closed = true;
    await this.#restarting?.catch(() => undefined);
    await this.stop();
    claimedPorts.delete(this.port);
    untrackDir(this.#dir);
    await rm(this.#dir, { recursive: true, force: true });
  }

  async #restart(delayMs: number, redisServer: string | undefined): Promise<void> {
    await this.stop();
    if (delayMs > 0) await delay(delayMs);
    if (this.#closed) throw this.#stateError('restart', 'its masters were closed during the restart');
    if (redisServer !== undefined) this.#config = { ...this.#config, redisServer };
    this.#attach(await launchServer({ ...this.#config, port: this.port, dir: this.#dir }));
  }

  #attach(server: Launched): void {
    this.#server = server;
    this.#paused = false;
    void server.exited.then(() => {
      // Also when it dies on its own (crash, OOM, someone's kill): state follows reality.
      if (this.#server === server) {
        this.#server = undefined;
        this.#paused = false;
      }
    });
  }

  #assertServing(operation: string): void {
    if (!this.running) throw this.#stateError(operation, 'it is not running');
  }

  #stateError(operation: string, why: string): MasterStateError {
    return new MasterStateError(`cannot ${operation} master ${this.index} (port ${this.port}): ${why}`);
  }
}
