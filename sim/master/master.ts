import { createHash } from 'node:crypto';
import { luaEngine } from '../lua/engine.js';
import type { Context, Server } from './command.js';
import { arityFits, CommandTable } from './commands/table.js';
import { SimConnection } from './connection.js';
import { Keyspace, NEVER } from './keyspace.js';
import { Fail, arityError, toReply, type Reply, type Value } from './reply.js';
import { Tracking, type Push, type Session } from './tracking.js';
import { dumpKeyspace, seedEntry, type KeyDump, type SeedValue } from './inspect.js';

export interface SimMasterOptions {
  /** The master's clock in ms (a virtual clock; fractions are kept to the µs). */
  readonly now: () => number;
  /**
   * Which server to be: Redis 7.0, or Valkey 9, which adds `SET … IFEQ` and `DELIFEQ` (not yet
   * proven against a real Valkey). @default 'redis-7.0'
   */
  readonly flavor?: 'redis-7.0' | 'valkey-9';
}

export interface ConnectOptions {
  /** The protocol of replies; pushes need 3. @default 3 (as @redis/client's default) */
  readonly resp?: 2 | 3;
}

/** The master's side of one connection. */
class Client implements Session {
  open = true;
  tracking = false;
  readonly pending: (string | null)[] = [];
  connection!: SimConnection;

  constructor(readonly id: number, readonly resp: 2 | 3) {}

  push(push: Push): void {
    this.connection.onPush?.(push, false);
  }
}

/**
 * A command's view of the master, one for commands from clients and one for those a script runs:
 * reused, as the master runs one command at a time (and a script's commands within its call).
 */
class Frame implements Context {
  nowUs = 0;
  nowMs = 0;
  resp: 2 | 3 = 2;
  session!: Session;
  /** A script's declared keys (what its reads track, see #fromScript). */
  declared: readonly string[] = [];

  constructor(
    readonly db: Keyspace,
    readonly tracking: Tracking,
    readonly server: Server,
    readonly inScript: boolean,
  ) {}

  signal(key: string): void {
    this.tracking.invalidate(key, this.session);
  }
}

const kUnknownFromScript = new Fail('ERR Unknown Redis command called from script');
const kArityFromScript = new Fail('ERR Wrong number of args calling Redis command from script');
const kNoScript = new Fail('ERR This Redis command is not allowed from script');

/**
 * A Redis 7.0 master in memory, on a clock it is given: the commands pipelock sends and its Lua
 * scripts run for real (sim/lua), client-side-caching invalidations pushed to tracking
 * connections, keys expiring on the clock. One command at a time, synchronously, deterministic:
 * no wall clock, no randomness. Faults at the master's level: restart (empty, scripts forgotten,
 * connections dropped), flushAll, dropConnections; delays and pauses belong to the transport.
 */
export class SimMaster {
  readonly #now: () => number;
  readonly #tracking = new Tracking();
  readonly #db: Keyspace;
  readonly #clients = new Map<number, Client>();
  /** SHAs of the scripts loaded here (compiled once per process by the engine). */
  readonly #scripts = new Set<string>();
  readonly #shas = new Map<string, string>();
  readonly #engine = luaEngine();
  readonly #server: Server;
  readonly #commands: CommandTable;
  readonly #top: Frame;
  readonly #inner: Frame;
  readonly #runner: (args: string[]) => Value;
  #nextId = 1;
  /** The connection whose command is running: its own invalidations wait for its reply. */
  #current: Client | undefined;

  constructor(options: SimMasterOptions) {
    this.#now = options.now;
    const valkey = options.flavor === 'valkey-9';
    this.#commands = new CommandTable(valkey);
    this.#db = new Keyspace((key) => {
      this.#tracking.invalidate(key, this.#current);
    });
    this.#server = {
      valkey,
      loadScript: (source) => this.#load(source),
      hasScript: (sha) => this.#scripts.has(sha),
      flushScripts: () => {
        this.#scripts.clear();
      },
      runScript: (ctx, sha, keys, args) => this.#run(ctx, sha, keys, args),
    };
    this.#top = new Frame(this.#db, this.#tracking, this.#server, false);
    this.#inner = new Frame(this.#db, this.#tracking, this.#server, true);
    this.#runner = (args) => this.#fromScript(this.#inner, args);
  }

  /** A new client connection. */
  connect(options: ConnectOptions = {}): SimConnection {
    const client = new Client(this.#nextId++, options.resp ?? 3);
    client.connection = new SimConnection(client.id, client.resp, {
      exec: (args) => this.#exec(client, args),
      close: () => {
        this.#close(client);
      },
      isOpen: () => client.open,
    });
    this.#clients.set(client.id, client);
    return client.connection;
  }

  /** FLUSHALL: every key gone, a null invalidation to every tracking connection. */
  flushAll(): void {
    this.#db.clear();
    this.#tracking.flush(this.#clients.values(), undefined);
  }

  /** Every connection closed (each one's onClose called); what they tracked is no longer told. */
  dropConnections(): void {
    for (const client of [...this.#clients.values()]) this.#close(client);
  }

  /** A restart without persistence: connections dropped, keyspace empty, scripts and tracking forgotten. */
  restart(): void {
    this.dropConnections();
    this.#db.clear();
    this.#scripts.clear();
    this.#tracking.clear();
  }

  /** Redis's background expiry, all at once: deletes every key past its time (each one pushed); how many. */
  expireAll(): number {
    return this.#db.expireAll(this.#clock().ms);
  }

  /** The live keys, sorted, with their values and expiry (inspection: touches nothing, expires nothing). */
  dump(): KeyDump[] {
    return dumpKeyspace(this.#db, this.#clock().ms);
  }

  /** Plants a key as a client's write would (signalled): a foreign key of any type, for tests and scenarios. */
  seed(key: string, value: SeedValue, ttlMs?: number): void {
    const { ms } = this.#clock();
    this.#db.put(key, seedEntry(value, ttlMs === undefined ? NEVER : ms + ttlMs));
    this.#tracking.invalidate(key, undefined);
  }

  #clock(): { us: number; ms: number } {
    const us = Math.round(this.#now() * 1000);
    return { us, ms: Math.floor(us / 1000) };
  }

  #exec(client: Client, args: readonly string[]): Reply {
    if (args.length === 0) throw new TypeError('a command has at least its name');
    const { us, ms } = this.#clock();
    const frame = this.#top;
    frame.nowUs = us;
    frame.nowMs = ms;
    frame.resp = client.resp;
    frame.session = client;
    this.#current = client;
    let value: Value;
    try {
      value = this.#dispatch(frame, args);
    } finally {
      this.#current = undefined;
    }
    const reply = toReply(value);
    if (client.pending.length > 0) {
      for (const key of client.pending.splice(0)) client.connection.onPush?.(['invalidate', key === null ? null : [key]], true);
    }
    return reply;
  }

  #dispatch(ctx: Context, args: readonly string[]): Value {
    const command = this.#commands.named(args[0]!);
    if (command === undefined) return unknownCommand(args);
    if (!arityFits(command, args.length)) return arityError(command.name);
    const value = command.run(ctx, args);
    if (command.readonly && ctx.session.tracking) for (const key of command.keys!(args)) this.#tracking.remember(ctx.session, key);
    return value;
  }

  /**
   * A command from a script's redis.call: Redis's checks, its reply in RESP2. A read remembers,
   * for a tracking caller, every key the script declared rather than the key read: Redis 7.0's
   * call() takes the keys from the caller's command, the EVAL (fixed in later versions).
   */
  #fromScript(frame: Frame, args: readonly string[]): Value {
    const command = this.#commands.named(args[0]!);
    if (command === undefined) return kUnknownFromScript;
    if (!arityFits(command, args.length)) return kArityFromScript;
    if (command.noscript) return kNoScript;
    const value = command.run(frame, args);
    if (command.readonly && frame.session.tracking) for (const key of frame.declared) this.#tracking.remember(frame.session, key);
    return value;
  }

  #run(ctx: Context, sha: string, keys: readonly string[], args: readonly string[]): Value {
    const inner = this.#inner;
    inner.nowUs = ctx.nowUs;
    inner.nowMs = ctx.nowMs;
    inner.session = ctx.session;
    inner.declared = keys;
    return this.#engine.run(sha, keys, args, this.#runner);
  }

  #load(source: string): string | Value {
    let sha = this.#shas.get(source);
    if (sha === undefined) {
      sha = createHash('sha1').update(source).digest('hex');
      this.#shas.set(source, sha);
    }
    const error = this.#engine.compile(sha, source);
    if (error !== undefined) return error;
    this.#scripts.add(sha);
    return sha;
  }

  #close(client: Client): void {
    if (!client.open) return;
    client.open = false;
    this.#clients.delete(client.id);
    client.connection.onClose?.();
  }
}

/** Redis's unknown-command error, with up to 128 characters of the arguments. */
function unknownCommand(args: readonly string[]): Fail {
  let shown = '';
  for (let i = 1; i < args.length && shown.length < 128; i++) shown += `'${args[i]!.slice(0, 128 - shown.length)}' `;
  return new Fail(`ERR unknown command '${args[0]!.slice(0, 128)}', with args beginning with: ${shown}`.replace(/[\r\n]/g, ' '));
}
