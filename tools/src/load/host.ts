import { createRequire } from 'node:module';
import { arch, availableParallelism, cpus, hostname, platform, release, totalmem } from 'node:os';

/** Where and how a run was made, so results from several machines can sit side by side. */
export interface HostLine {
  readonly hostname: string;
  readonly os: string;
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly node: string;
  readonly pipelock: string;
  /** Each distinct server version seen (INFO server): `7.0.15` for Redis, `valkey 9.0.0` for Valkey. */
  readonly redis: readonly string[];
  /** ISO time of the start (wall clock: for people, never for measuring). */
  readonly startedAt: string;
  /** Every flag as resolved, credentials removed from server URLs. */
  readonly flags: Readonly<Record<string, string | number | boolean | null | readonly string[]>>;
}

export function hostLine(redis: readonly string[], flags: HostLine['flags'], startedAt: Date): HostLine {
  return {
    hostname: hostname(),
    os: `${platform()} ${release()} ${arch()}`,
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cores: availableParallelism(),
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    pipelock: packageVersion(),
    redis: [...new Set(redis)].sort(),
    startedAt: startedAt.toISOString(),
    flags,
  };
}

/** One line for tables: "Intel Xeon …, 2 cores, node v20.20.2, redis 7.0.15, host" (or "valkey 9.0.0"). */
export function describeHost(host: HostLine): string {
  return `${host.cpu}, ${host.cores} cores, node ${host.node}, ${describeServers(host)}, pipelock ${host.pipelock}, ${host.hostname}`;
}

/** "redis 7.0.15", "valkey 9.0.0", or both joined by '/': a bare version is Redis's (result files before Valkey was named). */
export function describeServers(host: HostLine, separator = '/'): string {
  if (host.redis.length === 0) return 'redis ?';
  return host.redis.map((v) => (/^\d/.test(v) ? `redis ${v}` : v)).join(separator);
}

function packageVersion(): string {
  // The library's version, not the tools': it is the one a run measured (pipelock exports its package.json).
  try {
    const pkg = createRequire(import.meta.url)('pipelock/package.json') as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}
