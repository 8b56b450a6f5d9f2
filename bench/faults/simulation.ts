/**
 * RELIABILITY.md's simulation section, from bench/results/simulate.json (written by
 * `npm run simulate:long`): the figures per scenario, and what the simulation covers and does not.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScenarioTally, SimulationSummary } from '../../sim/world/summary.js';
import { hostLine, ROOT } from '../lib/host.js';

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

/** sim/README.md's "Not simulated" section, read when rendering so the two cannot drift apart. */
export function notSimulated(readme = readFileSync(join(ROOT, 'sim', 'README.md'), 'utf8')): string {
  const section = /^## Not simulated[^\n]*\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(readme)?.[1]?.trim();
  if (section === undefined || section === '') throw new Error('sim/README.md has no "## Not simulated" section to render');
  return section.replace(/\s*\n\s*/g, ' ');
}

const covers = (): string => `\`npm run simulate\` (sim/world/, described in sim/README.md) runs pipelock's own Redlock, engine,
waiting, renewal, handover, semaphore and read/write lock code in several simulated processes against simulated masters
(sim/master, proven against redis-server by the differential tests), on virtual time, with the
schedule chosen by a seed: message delays and late messages per connection (FIFO kept), dropped
connections, partitions, master pauses, restarts that lose every key (delayed past any TTL),
process pauses and synchronous stalls, per-process and per-master clock rates within the drift
bound, wall-clock jumps. The checker judges the holders' claims (what each Lock said its validity
was when the holder acted), fencing order, operations that never settle, keys left after a quiet
phase, timers left after quit(), callbacks that throw, unhandled rejections and runs that spin
(events at one virtual instant past a bound: cut and counted as a violation); a seed replays
exactly (a hash of the history). \`npm run simulate:bugs\` plants known bug shapes in a copy of
src/ and reports the seed that finds each.

Found in pipelock by the simulation, and fixed: \`extend()\` to a shorter duration left the Lock
claiming its old validity while the extension was out (test/integration/extend-shorter.test.ts);
an auto-extended lock whose renewal waited on slow masters was reported lost at the node timeout,
after its validity ran out (test/integration/renewal-expiry.test.ts); a late grant of a won
acquisition was undone after an extension of the held lock had counted that master
(src/engine/leftovers.ts; reproduced on real masters with SIGSTOP in test/integration/late-grant.test.ts),
and again once the held lock had been replaced by \`extend()\` or passed to a waiter (two more
tests there). It also showed that fencing tokens need the masters' wall clocks to agree within a
restart's downtime (a counter a master re-creates from its clock after a restart must start above
the others'), an assumption now stated in docs/fencing-and-run-once.md.

Not simulated (from sim/README.md): ${notSimulated()}

A holder that acts right after its process was paused, judging only by using()'s signal, can
overlap a newer holder: that is the lease's limit (fencing is its answer), counted apart as
expected, as is a caller that finds its lock already expired because synchronous code ran past
the lock's validity between the decision and the caller (two acquisitions decided by one reply,
the first holder's work first), and as are runs given faults outside Redlock's assumptions (a
master restarting empty at once, a master's clock jumping forward).`;

export function simulationSection(summary: SimulationSummary | undefined): string {
  if (summary === undefined) return `${covers()}\n\nNo run recorded yet: \`npm run simulate:long\` writes bench/results/simulate.json.`;
  const runOf = (s: ScenarioTally): string => (s.run === undefined ? '' : `${s.run.pipelock.replace(/^.*\((.*)\)$/, '$1')}, ${s.run.date.slice(0, 10)}`);
  const rows = summary.scenarios.map((s) => `| \`${s.scenario}\` | ${fmt(s.first)}–${fmt(s.first + s.seeds - 1)} | **${fmt(s.violating)}**${s.violatingSeeds.length > 0 ? ` (seeds ${s.violatingSeeds.slice(0, 5).join(', ')})` : ''} | ${fmt(s.unsafeRuns)} | ${fmt(s.expectedRuns)} | ${(s.seeds / s.seconds).toFixed(1)} | \`${s.digest}\` | ${runOf(s)} |`);
  return `${covers()}

Each row is its scenario's last \`npm run simulate:long\` (a run of some scenarios replaces their rows; _run_ is its commit and day). The latest, \`${summary.command}\` (on ${summary.jobs} thread${summary.jobs === 1 ? '' : 's'}; seeds/s is the scenario's seeds over its wall time, on a machine as busy as the load average says), ran on ${hostLine(summary.host)}:

| scenario | seeds | violations (bugs) | runs with unsafe faults | runs unsafe only where expected | seeds/s | histories | run |
| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |
${rows.join('\n')}

_histories_ is a hash of every seed's history hash in seed order: the same seeds give the same value whatever \`--jobs\`.`;
}
