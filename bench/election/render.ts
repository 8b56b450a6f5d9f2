/** The election benchmark's settings, result shape and BENCHMARKS.md section (bench/report.ts). */
import type { FailoverResult, FailoverStats } from '../../tools/src/load/failover.js';
import { hostLine, type Host } from '../lib/host.js';
import { ELECTION_NOTE } from '../notes.js';

/** Five masters, a one-second lease, each leader killed 200 ms after it leads, 30 deaths of each sort. */
export const kElection = Object.freeze({ masters: 5, lease: 1_000, holdMs: 200, kills: 30 });

export interface ElectionResult extends FailoverResult {
  readonly host: Host;
  /** The loadtest command that measures the same. */
  readonly command: string;
  readonly finished: string;
}

const ms = (n: number): string => (Number.isFinite(n) ? n.toFixed(n < 100 ? 1 : 0) : '–');
const row = (label: string, s: FailoverStats): string => `| ${label} | ${s.count} | ${ms(s.p50)} | ${ms(s.p99)} | ${ms(s.max)} | ${ms(s.min)} |`;

export function renderElection(result: ElectionResult): string {
  const s = result.settings;
  const errors = Object.entries(result.errors).map(([code, n]) => `${code} ${n}`).join(', ');
  return [
    '## Leader election: failover time', '',
    `\`npm run bench:election\` (bench/election/, the measurement of \`${result.command}\`), ${hostLine(result.host)}. ` +
      `${s.campaigners} campaigners, each a Redlock of its own in one process (one clock for every instant), on one election over ${s.masters} local masters; ` +
      `lease ${s.lease} ms, renewDeadline ${s.renewDeadline} ms, retryPeriod ${s.retryPeriod} ms (the defaults for that lease). ` +
      `Each leader is killed ${s.holdMs} ms after it leads, alternately by a **crash** (its Redlock quits without resigning: its keys stay until the lease runs out, and a fresh campaigner takes its place) ` +
      `and by **resign()**. Failover is from the death to the next leader's first action (its \`campaign()\` resolved: lock, term raised on a quorum, leader record written). ` +
      `"After the lease" is a crash's failover less the lease its leader had left when it died (\`term.validity\`): the wait for a campaigner to try again once the keys expired.`, '',
    '| death | n | p50 ms | p99 ms | max ms | min ms |', '|---|---:|---:|---:|---:|---:|',
    row('crash → next leader', result.crash),
    row('crash, after the lease ran out', result.crashAfterLease),
    row('resign → next leader', result.resign),
    '',
    `- Errors: ${errors === '' ? 'none' : errors}. Percentiles are nearest-rank: with ${s.kills} deaths of each sort, p99 is the largest.`,
    `- ${ELECTION_NOTE}`,
    '',
  ].join('\n');
}
