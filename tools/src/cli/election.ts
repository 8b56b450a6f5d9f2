/** `pipelock loadtest --kind election`: runs the failover measurement, prints it, writes --json. */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { describeHost, type HostLine } from '../load/host.js';
import { runFailover, type FailoverResult, type FailoverStats } from '../load/failover.js';
import type { LoadOptions } from '../load/options.js';
import { EXIT } from './errors.js';

const ms = (n: number): string => (Number.isFinite(n) ? `${n.toFixed(n < 10 ? 2 : 0)} ms` : '–');
const line =
  (label: string,
    s: FailoverStats): string => `  ${label.padEnd(30)} n=${String(s.count).padEnd(4)} p50 ${ms(s.p50).padStart(9)}   p99 `
      + `${ms(s.p99).padStart(9)}   max ${ms(s.max).padStart(9)}   min ${ms(s.min).padStart(9)}`;

export function formatFailover(result: FailoverResult & { readonly host: HostLine }): string {
  const s = result.settings;
  const errors = Object.entries(result.errors).map(([code, n]) => `${code} ${n}`).join(', ');
  return [
    describeHost(result.host),
    `election failover: ${s.campaigners} campaigners on ${s.masters} masters; lease ${s.lease} ms, renewDeadline ${s.renewDeadline} ms, `
      + `retryPeriod ${s.retryPeriod} ms; ` +
      `each leader killed ${s.holdMs} ms after it leads, ${s.kills} crashes (Redlock quit, no resign) and ${s.kills} `
        + `resigns${result.interrupted ? ' (interrupted)' : ''}`,
    line('crash → next leader', result.crash),
    line('  of which after the lease', result.crashAfterLease),
    line('resign → next leader', result.resign),
    `  errors: ${errors === '' ? 'none' : errors}`,
  ].join('\n');
}

/** Returns the exit code: failed when no death of either sort was followed by a successor. */
export async function electionRun(options: LoadOptions, urls: readonly string[], name: string, host: HostLine,
  stop: AbortSignal): Promise<number> {
  console.error(`pipelock loadtest: --kind election, 3 campaigners on ${urls.length} masters; ${options.kills} crashes and `
    + `${options.kills} resigns`);
  const result = { ...(await runFailover(options, urls, name, stop)), host };
  console.log(formatFailover(result));
  if (options.json !== undefined) {
    await mkdir(dirname(options.json), { recursive: true });
    await writeFile(options.json, `${JSON.stringify(result, null, 2)}\n`);
  }
  return result.crash.count === 0 || result.resign.count === 0 ? EXIT.failed : EXIT.ok;
}
