import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { MasterStartError, RedisServerNotFoundError } from './errors.js';
import type { ResolvedMastersOptions } from './options.js';
import { trackProcess, untrackProcess } from './reaper.js';
import { serverArgs } from './server-args.js';

/** One server's launch: the masters' resolved options (`env` is added to the inherited environment), its port and folder. */
export interface LaunchOptions extends Omit<ResolvedMastersOptions, 'count'> {
  readonly port: number;
  readonly dir: string;
}

export interface ServerExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A running redis-server; `exited` settles once it has exited and been reaped. */
export interface Launched {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly exited: Promise<ServerExit>;
}

const kPollMs = 20;
const kLogTailLines = 20;

/** Spawns one redis-server and resolves once it answers PING; on failure nothing is left running. */
export async function launchServer(options: LaunchOptions): Promise<Launched> {
  const { redisServer, host, port, dir } = options;
  const logPath = join(dir, 'redis-server.log');
  // The server writes straight to a file rather than to a pipe we would have to keep draining:
  // no handle in this process, and the file is still there to quote when startup fails.
  const log = openSync(logPath, 'w');
  let child: ChildProcess;
  try {
    child = spawn(redisServer, serverArgs(port, host, dir, options.extraArgs),
      { stdio: ['ignore', log, log], env: { ...process.env, ...options.env } });
  } finally {
    closeSync(log);
  }
  const exited = new Promise<ServerExit>((resolve) => {
    child.once('exit', (code, signal) => {
      resolve({ code, signal });
    });
  });
  try {
    await once(child, 'spawn');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES') throw new RedisServerNotFoundError(redisServer, { cause: error });
    throw error;
  }
  const pid = child.pid!;
  trackProcess(pid, options.handleSignals);
  void exited.then(() => {
    untrackProcess(pid);
  });
  // A forgotten close() must not hang the caller's process; the reaper kills us at exit instead.
  child.unref();

  const outcome = await untilReady(host, port, exited, performance.now() + options.startTimeoutMs);
  if (outcome === 'ready') return { child, pid, exited };
  if (outcome === 'timeout') {
    child.ref();
    child.kill('SIGKILL');
    await exited;
  }
  const reason =
    outcome === 'timeout'
      ? `did not answer PING within ${options.startTimeoutMs} ms`
      : `exited before answering PING (${outcome.signal ?? `code ${String(outcome.code)}`})`;
  throw new MasterStartError(reason, port, logTail(logPath));
}

/** Whether a start failed only because another process bound the port first. */
export function isPortTaken(error: unknown): boolean {
  return error instanceof MasterStartError && error.logTail.includes('Address already in use');
}

async function untilReady(
  host: string,
  port: number,
  exited: Promise<ServerExit>,
  deadline: number,
): Promise<'ready' | 'timeout' | ServerExit> {
  for (;;) {
    const left = deadline - performance.now();
    if (left <= 0) return 'timeout';
    const answer = await Promise.race([ping(host, port, Math.min(left, 500)), exited]);
    if (answer === true) return 'ready';
    if (answer !== false) return answer;
    const woken = await Promise.race([delay(kPollMs, 'slept' as const), exited]);
    if (woken !== 'slept') return woken;
  }
}

/** One raw `PING` on a fresh connection: true on `+PONG`, false on anything else or silence. */
export function ping(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let reply = '';
    const settle = (answered: boolean): void => {
      socket.destroy();
      resolve(answered);
    };
    socket.setTimeout(timeoutMs, () => {
      settle(false);
    });
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) settle(reply.startsWith('+PONG'));
    });
    socket.once('error', () => {
      settle(false);
    });
    socket.once('close', () => {
      settle(false);
    });
  });
}

function logTail(logPath: string): string {
  try {
    const lines = readFileSync(logPath, 'utf8').trim().split('\n');
    return lines.slice(-kLogTailLines).join('\n');
  } catch {
    return '';
  }
}
