import type { ConnectionOptions as TlsOptions } from 'node:tls';
import type { RedisClientOptions } from '@redis/client';
import { defaultReconnect } from '../open.js';

/** What @redis/client's `reconnectStrategy` may be: a delay, never, or a delay per retry (false or an Error: stop). */
export type Reconnect = number | false | ((retries: number, cause: Error) => number | false | Error);

/** Everything a lean connection needs, read once from a URL and the user's `clientOptions`. */
export interface LeanOptions {
  readonly host: string;
  readonly port: number;
  /** A Unix socket path (clientOptions.socket.path), used instead of host and port. */
  readonly path: string | undefined;
  /** TLS (`rediss://` or `socket.tls`), and the options for tls.connect (ca, servername, …). */
  readonly tls: boolean;
  /** Options passed on to net.connect or tls.connect as they are (keepAlive, noDelay, ca, …). */
  readonly socket: Readonly<Record<string, unknown>>;
  readonly connectTimeout: number;
  readonly reconnect: Reconnect;
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly name: string | undefined;
  readonly database: number | undefined;
}

function decoded(part: string): string | undefined {
  return part === '' ? undefined : decodeURIComponent(part);
}

/**
 * The URL's host, port, credentials and database with `clientOptions` over them, as @redis/client reads them;
 * @redis/client's socket defaults (no Nagle, keep-alive after 5 s, 5 s connect timeout).
 */
export function leanOptions(url: string, extra?: RedisClientOptions): LeanOptions {
  const parsed = new URL(url);
  const given = (extra?.socket ?? {}) as Record<string, unknown> & TlsOptions;
  const { host, port, path, tls, connectTimeout, reconnectStrategy, ...socket } = given;
  const database = parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : undefined;
  return {
    host: typeof host === 'string' ? host : parsed.hostname === '' ? 'localhost' : parsed.hostname.replace(/^\[|\]$/g, ''),
    port: typeof port === 'number' ? port : parsed.port === '' ? 6379 : Number(parsed.port),
    path: typeof path === 'string' ? path : undefined,
    tls: tls === true || parsed.protocol === 'rediss:',
    socket: { noDelay: true, keepAlive: true, keepAliveInitialDelay: 5000, ...socket },
    connectTimeout: typeof connectTimeout === 'number' ? connectTimeout : 5000,
    reconnect: (reconnectStrategy as Reconnect | undefined) ?? defaultReconnect,
    username: extra?.username ?? decoded(parsed.username),
    password: extra?.password ?? decoded(parsed.password),
    name: typeof extra?.name === 'string' ? extra.name : undefined,
    database: extra?.database ?? database,
  };
}

/**
 * The handshake: AUTH, CLIENT SETNAME, SELECT (each when set), else PING. Never none: 'ready' must mean the server
 * answered (test/integration/first-lock.test.ts).
 */
export function handshake(options: LeanOptions): string[][] {
  const commands: string[][] = [];
  if (options.password !== undefined) {
    commands.push(options.username === undefined ? ['AUTH', options.password] : ['AUTH', options.username, options.password]);
  }
  if (options.name !== undefined) commands.push(['CLIENT', 'SETNAME', options.name]);
  if (options.database !== undefined && options.database !== 0) commands.push(['SELECT', String(options.database)]);
  if (commands.length === 0) commands.push(['PING']);
  return commands;
}
