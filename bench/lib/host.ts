/** The host line every result file carries: what ran, where, when, and how to run it again. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface Host {
  readonly date: string;
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly os: string;
  readonly node: string;
  readonly redisServer: string;
  /** valkey-server's version, in runs with Valkey masters. */
  readonly valkeyServer?: string;
  readonly pipelock: string;
  readonly packages: Readonly<Record<string, string>>;
  /** 1-minute load average when the run started and ended: a busy machine shows here. */
  readonly loadavg: readonly number[];
  readonly command: string;
}

function quiet(file: string, args: readonly string[]): string {
  try {
    return execFileSync(file, args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

export function packageVersion(name: string): string {
  try {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'not installed';
  }
}

/** `valkey`: the Valkey binary the run's Valkey masters are, whose version the host line records too. */
export function hostInfo(packages: readonly string[], command: string, valkey?: string): Host {
  const own = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const commit = quiet('git', ['rev-parse', '--short', 'HEAD']);
  const dirty = quiet('git', ['status', '--porcelain', '--', 'src']) === '' ? '' : ' + uncommitted src changes';
  const redis = /v=(\S+)/.exec(quiet(process.env.PIPELOCK_REDIS_SERVER ?? 'redis-server', ['--version']));
  return {
    date: new Date().toISOString(),
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: `${platform()} ${release()}`,
    node: process.version,
    redisServer: redis?.[1] ?? 'unknown',
    ...(valkey === undefined ? {} : { valkeyServer: /v=(\S+)/.exec(quiet(valkey, ['--version']))?.[1] ?? 'unknown' }),
    pipelock: `${own.version} (${commit}${dirty})`,
    packages: Object.fromEntries([...new Set(packages)].sort().map((name) => [name, packageVersion(name)])),
    loadavg: [loadavg()[0] ?? 0],
    command,
  };
}

/** One line for the markdown and the console. */
export function hostLine(host: Host): string {
  const pkgs = Object.entries(host.packages).map(([name, version]) => `${name} ${version}`).join(', ');
  const load = host.loadavg.map((l) => l.toFixed(2)).join(' → ');
  return `${host.cpu}, ${host.cores} cores, ${host.memoryGiB} GiB, ${host.os}; Node ${host.node}; redis-server ${host.redisServer}${host.valkeyServer === undefined ? '' : `; valkey-server ${host.valkeyServer}`}; pipelock ${host.pipelock}; ${pkgs === '' ? '' : `${pkgs}; `}load avg ${load}; ${host.date}`;
}
