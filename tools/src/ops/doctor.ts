import { quorumSize } from 'pipelock/protocol';
import { median } from '../shared/median.js';
import { connectAll } from './connect.js';
import { gatherFacts, sampleClocks, type ClockSample, type MasterFacts } from './facts.js';
import type { Finding, Severity } from './finding.js';
import { namesCluster, perMaster } from './per-master.js';

export type { Finding, Severity } from './finding.js';
export { namesCluster } from './per-master.js';

export interface ClockReading {
  readonly master: string;
  /** Server seconds per second of this host's monotonic clock, over the sampling interval. */
  readonly rate: number;
  /** Server wall clock minus this host's, ms. */
  readonly offsetMs: number;
  /** How far `rate` may be off from the sampling alone (half of each round trip over the interval). */
  readonly uncertainty: number;
}

export interface DoctorReport {
  readonly masters: readonly MasterFacts[];
  readonly clocks: readonly ClockReading[];
  readonly findings: readonly Finding[];
  readonly hazards: number;
  readonly warnings: number;
}

export interface DoctorOptions {
  /** Time between the two TIME samples, ms. */
  readonly clockIntervalMs: number;
  /** The driftFactor the application uses: a clock rate further than this from 1 is a hazard. */
  readonly driftFactor: number;
  /** The nodeTimeout the application uses, ms: a round trip above half of it is a warning. */
  readonly nodeTimeoutMs: number;
  /** A key like the application's lock keys, for the ACL key-pattern check. */
  readonly key: string;
  /** One server (or one Redis Cluster) on purpose (`--single`, or one `redis+cluster://` URL): a warning, not a hazard. */
  readonly single?: boolean;
}

/** The trade-off of one server or one Redis Cluster, in the words docs/deployments.md uses. */
export const kSingleTradeoff =
  'a plain lock, not Redlock: no quorum of independent masters, so a crash that loses its data, or a failover ' +
  'to an asynchronous replica, can hand a held lock to a second holder; use fencing tokens for writes that must never overlap, ' +
  'or 3 or 5 independent masters to survive a minority failing';

/** Connects to every master, reads what Redlock's safety depends on, and judges it. Read-only. */
export async function runDoctor(urls: readonly string[], options: DoctorOptions): Promise<DoctorReport> {
  // A cluster is read through the node named: doctor checks that node's server.
  const { connections, close } = await connectAll(urls.map((url) => url.replace(/^(rediss?)\+cluster:/, '$1:')), urls);
  try {
    const first = await sampleClocks(connections);
    const masters = await Promise.all(connections.map((connection) => gatherFacts(connection, options.key)));
    const elapsed = performance.now() - Math.min(...first.map((s) => s?.mono ?? Infinity));
    if (elapsed < options.clockIntervalMs) await new Promise((resolve) => setTimeout(resolve, options.clockIntervalMs - elapsed));
    const second = await sampleClocks(connections);
    const clocks = masters.flatMap((m, i) => {
      const reading = clockReading(m.url, first[i], second[i]);
      return reading === undefined ? [] : [reading];
    });
    return judge(masters, clocks, options);
  } finally {
    close();
  }
}

export function clockReading(master: string, a: ClockSample | undefined, b: ClockSample | undefined): ClockReading | undefined {
  if (a === undefined || b === undefined || b.mono <= a.mono) return undefined;
  const interval = b.mono - a.mono;
  return { master, rate: (b.server - a.server) / interval, offsetMs: b.server - b.wall, uncertainty: (a.errorMs + b.errorMs) / interval };
}

/** The findings for a set of masters: pure, so every rule is unit-testable on made-up facts. */
export function judge(masters: readonly MasterFacts[], clocks: readonly ClockReading[], options: Pick<DoctorOptions,
  'driftFactor' | 'nodeTimeoutMs' | 'single'>): DoctorReport {
  const findings: Finding[] = [];
  const add = (finding: Finding): void => {
    findings.push(finding);
  };
  const n = masters.length;
  const quorum = quorumSize(n);
  const reachable = masters.filter((m) => m.reachable);

  const single = n === 1 && (options.single === true || namesCluster(masters[0]!.url));
  if (single) {
    const what = namesCluster(masters[0]!.url) ? 'one Redis Cluster' : 'one server';
    add({ severity: 'warning', check: 'master-count', message: `${what}, as given`, consequence: kSingleTradeoff,
      fix: 'none needed if that is the trade-off you chose' });
  } else if (n < 3) {
    add({
      severity: 'hazard', check: 'master-count', message: `${n} master${n === 1 ? '' : 's'} given`,
      consequence: n === 1 ? 'one server is a single point of failure: when it fails or restarts empty, locks are lost or unavailable'
        : 'quorum is 2 of 2: one master down stops all locking',
      fix: 'run at least 3 independent masters (5 tolerate 2 failures)',
    });
  } else if (n % 2 === 0) {
    add({ severity: 'info', check: 'master-count',
      message: `${n} masters: quorum ${quorum} tolerates ${n - quorum} failure(s), as ${n - 1} would`,
        consequence: 'an even count adds load but no fault tolerance', fix: `use ${n - 1} or ${n + 1} masters` });
  }
  for (const m of masters) {
    if (!m.reachable) {
      add({ severity: 'hazard', check: 'reachable', master: m.url, message: `cannot reach ${m.url}: ${m.error ?? 'unknown error'}`,
        consequence: 'its vote is lost: fewer failures are tolerated', fix: 'check the address, credentials, TLS and firewall' });
    }
  }
  if (reachable.length < quorum) {
    add({ severity: 'hazard', check: 'quorum', message: `only ${reachable.length} of ${n} masters reachable, quorum is ${quorum}`,
      consequence: 'no lock can be acquired', fix: 'bring masters back' });
  }
  sameServers(reachable, add);
  for (const m of reachable) perMaster(m, options, add);
  clockFindings(clocks, options.driftFactor, add);

  const order: Record<Severity, number> = { hazard: 0, warning: 1, info: 2 };
  findings.sort((a, b) => order[a.severity] - order[b.severity]);
  return {
    masters, clocks, findings,
    hazards: findings.filter((f) => f.severity === 'hazard').length,
    warnings: findings.filter((f) => f.severity === 'warning').length,
  };
}

/** Two URLs that are one server (same run_id), or a replica and its master (same replication id). */
function sameServers(masters: readonly MasterFacts[], add: (f: Finding) => void): void {
  // A server listed twice is reported once, as such; its relations are those of its first listing.
  const repeated = new Set<number>();
  for (let i = 0; i < masters.length; i++) {
    if (repeated.has(i)) continue;
    for (let j = i + 1; j < masters.length; j++) {
      if (repeated.has(j)) continue;
      const a = masters[i]!;
      const b = masters[j]!;
      if (a.runId !== undefined && a.runId === b.runId) {
        repeated.add(j);
        add({
          severity: 'hazard', check: 'same-server', master: b.url,
            message: `${a.url} and ${b.url} are the same server (run_id ${a.runId.slice(0, 8)}…)`,
          consequence: 'one server votes twice: a quorum can be reached with fewer independent masters than counted, and one crash '
            + 'takes two votes',
          fix: 'list each server once',
        });
      } else if (a.replid !== undefined && a.replid === b.replid) {
        add({
          severity: 'hazard', check: 'replicas', master: b.url,
            message: `${a.url} and ${b.url} share replication id ${a.replid.slice(0, 8)}…: one replicates the other`,
          consequence: 'replication is asynchronous: a lock written to the master may be missing on the replica, and both count as votes',
          fix: 'use independent masters with no replication between them',
        });
      } else if (a.replid !== undefined && (a.replid === b.replid2 || a.replid2 === b.replid)) {
        add({
          severity: 'warning', check: 'replicas', master: b.url,
            message: `${a.url} and ${b.url} share replication history (one was promoted from the other)`,
          consequence: 'locks held at the promotion exist on both: they are not independent copies of nothing',
          fix: 'use masters that never replicated from each other, or flush the promoted one before use',
        });
      }
    }
  }
}

function clockFindings(clocks: readonly ClockReading[], driftFactor: number, add: (f: Finding) => void): void {
  for (const c of clocks) {
    // Only what the sampling cannot explain counts: a slow round trip widens the bound, not the verdict.
    if (Math.abs(c.rate - 1) - c.uncertainty > driftFactor) {
      add({
        severity: 'hazard', check: 'clock-rate', master: c.master,
          message: `${c.master}: its clock ran ${(c.rate * 100).toFixed(2)}% (± ${(c.uncertainty * 100).toFixed(2)}) of this host's `
            + `rate while sampled`,
        consequence: `Redlock assumes clocks run at nearly the same rate (driftFactor ${driftFactor}); a faster or jumping clock expires `
          + `locks early, so two clients can hold one`,
        fix: 'run ntpd/chrony in slew mode (no steps) on every master and client; find why this clock is off',
      });
    }
  }
  if (clocks.length >= 2) {
    const offsets = clocks.map((c) => c.offsetMs);
    const spread = Math.max(...offsets) - Math.min(...offsets);
    if (spread > 1000) {
      add({
        severity: 'info', check: 'clock-offset',
          message: `master wall clocks differ by up to ${Math.round(spread)} ms (median offset to this host `
            + `${Math.round(median(offsets))} ms)`,
        consequence: 'none for Redlock itself (it needs equal rates, not equal times), but a sign of missing time synchronisation, which '
          + 'does lead to steps',
        fix: 'synchronise the clocks (NTP)',
      });
    }
  }
}
