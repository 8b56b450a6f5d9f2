import { Redlock } from 'pipelock';
import { EXIT, parseOr, UsageError } from './errors.js';
import { parseOpsFlags, usage, type OpsFlag } from './ops-flags.js';

const FLAGS: Readonly<Record<string, OpsFlag>> = {
  servers: { arg: 'URLS', help: 'comma-separated redis:// or rediss:// URLs of the masters (required)' },
  force: { arg: 'KEYS', help: 'the lock\'s resources, comma-separated (required): deleted whoever holds them' },
  reason: { arg: 'TEXT', help: 'why (required): the holder\'s signal aborts with LockRevokedError carrying it' },
  'marker-ttl': { arg: 'MS', help: 'how long the revoked-marker with the reason lives (default 60000)' },
  yes: { help: 'do it: without this flag nothing is written' },
};

export const RELEASE_USAGE = usage(
  `usage: pipelock release --servers URLS --force KEYS --reason TEXT --yes

Takes a lock away from its holder (a stuck job): deletes its keys on every master without the
owner check (redlock.forceRelease) and leaves a revoked-marker with the reason, so a holder that
watches its keys (watchHeld) aborts with LockRevokedError at once, others at their next renewal.
Writes to the masters: it does nothing without --yes.`,
  FLAGS,
  'Exit codes: 0 released, 1 fewer than a quorum of masters ran it, 2 bad flags or no --yes.',
);

interface ReleaseOptions {
  readonly servers: string[];
  readonly keys: string[];
  readonly reason: string;
  readonly markerMs: number;
}

function parse(args: readonly string[]): ReleaseOptions | 'help' {
  const parsed = parseOpsFlags('release', args, FLAGS, ['yes']);
  if (parsed === 'help') return 'help';
  const v = parsed.values;
  if (typeof v.force !== 'string' || v.force === '') throw new UsageError('--force', 'is required: the lock\'s resources, comma-separated');
  if (typeof v.reason !== 'string' || v.reason === '') throw new UsageError('--reason', 'is required: the holder is told it');
  const markerMs = typeof v['marker-ttl'] === 'string' ? Number(v['marker-ttl']) : 60_000;
  if (!Number.isSafeInteger(markerMs) || markerMs <= 0)
    throw new UsageError('--marker-ttl', 'must be a positive integer of ms', String(v['marker-ttl']));
  const keys = v.force.split(',').map((key) => key.trim());
  if (keys.some((key) => key === '')) throw new UsageError('--force', 'must not name an empty key', v.force);
  if (v.yes !== true)
    throw new UsageError('--yes', `is required to write: this would delete ${keys.join(', ')} on every master, whoever holds it`);
  return { servers: parsed.servers, keys, reason: v.reason, markerMs };
}

/** `pipelock release --force`: returns the exit code. */
export async function release(args: readonly string[]): Promise<number> {
  const options = parseOr('release', RELEASE_USAGE, () => parse(args));
  if (typeof options === 'number') return options;
  const redlock = new Redlock(options.servers, { retryCount: 0 });
  try {
    const result = await redlock.forceRelease(options.keys, { reason: options.reason, markerMs: options.markerMs });
    console.log(`pipelock release: ${options.keys.join(', ')} force-released on ${result.masters} of ${options.servers.length} masters `
      + `(${result.held ? 'it was held' : 'nobody held it'}); reason: ${options.reason}`);
    return EXIT.ok;
  } catch (error) {
    console.error(`pipelock release: ${(error as Error).message}`);
    return EXIT.failed;
  } finally {
    await redlock.quit();
  }
}
