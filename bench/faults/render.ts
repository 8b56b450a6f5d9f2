/**
 * RELIABILITY.md from bench/results/faults.json, bench/results/bad-input.json (written by
 * test/integration/bad-input.test.ts) and bench/results/simulate.json (npm run simulate:long). Every figure comes from those files; only the method and
 * the reading of the unsafe scenarios are prose. `npm run faults:report` re-renders without a run.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hostLine, ROOT } from '../lib/host.js';
import type { FaultsResult, ScenarioResult } from './run.js';
import { simulationSection } from './simulation.js';
import { scriptedSection } from './scripted.js';
import type { SimulationSummary } from '../../sim/world/summary.js';

interface BadInputResult {
  readonly tried: number;
  readonly handled: number;
  readonly functions: Readonly<Record<string, { tried: number; handled: number }>>;
  readonly categories: Readonly<Record<string, number>>;
  readonly cliFlags: number;
  /** Inputs whose documented answer is a result rather than an error (release twice, quit twice, …). */
  readonly resolving: number;
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const ms = (n: number | null): string => (n === null ? 'never' : `${fmt(n)} ms`);

function failures(result: ScenarioResult): string {
  const entries = Object.entries(result.failures).sort(([, a], [, b]) => b - a);
  if (entries.length === 0) return '0';
  return entries.map(([code, count]) => `${fmt(count)} ${code.replace(/^ERR_(PIPELOCK_|LOAD_)?/, '')}`).join(', ');
}

function verdict(result: ScenarioResult): string {
  if (result.problems.length > 0) return `**missed**: ${result.problems.join('; ')}`;
  return result.expect === 'unsafe' ? 'shown (not judged)' : 'met';
}

function scenarioTable(result: FaultsResult): string {
  const rows = result.scenarios.map((s) => [
    `\`${s.name}\``,
    s.fault,
    s.expect === 'safe' ? '0' : 'may be > 0',
    `**${fmt(s.violations)}**`,
    // A campaign's attempts are not counted (it waits as long as it takes).
    s.election === undefined ? fmt(s.attempts) : '–',
    fmt(s.acquisitions),
    failures(s),
    `${fmt(s.writes.rejected)}${s.stalled.holders > 0 ? ` (paused holders: ${s.stalled.staleRejected} of ${s.stalled.stale} stale writes rejected)` : ''}`,
    String(s.fenceInversions),
    ms(s.recoveryMs),
    `${ms(s.longestGapMs)} (at ${fmt(s.longestGapAtMs)})`,
    `${s.keysLeft} / ${s.keysWithoutTtl}`,
    verdict(s),
  ]);
  const header = ['scenario', 'fault', 'violations expected', 'violations', 'attempts', 'acquisitions', 'failed cycles by code', 'fenced writes rejected', 'fence inversions', 'recovery', 'longest gap', 'keys left / without TTL', 'verdict'];
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
}

function violationDetails(result: FaultsResult): string {
  const shown = result.scenarios.filter((s) => s.violations > 0);
  if (shown.length === 0) return 'No scenario produced a violation.';
  return shown.map((s) => {
    const examples = s.examples.map((v) =>
      `  - resource ${v.resource}: worker ${v.first.worker} (fence ${v.first.fence}) and worker ${v.second.worker} (fence ${v.second.fence}) both inside for ${v.overlapMs.toFixed(1)} ms, ${fmt(v.atMs)} ms after the fault began`).join('\n');
    return `- \`${s.name}\`: ${fmt(s.violations)} of ${fmt(s.acquisitions)} sections overlapped another holder's validity window; the fenced log rejected ${fmt(s.writes.rejected)} stale write(s) and accepted only rising fences (${s.server.ordered ? 'verified' : '**not** verified'} on the log server). First ones:\n${examples}`;
  }).join('\n');
}

/** The election scenario's own figures: its rows count leaderships, and its fences are terms. */
function electionDetails(result: FaultsResult): string {
  const runs = result.scenarios.filter((s) => s.election !== undefined);
  if (runs.length === 0) return '';
  return `### Leader election\n\n${runs.map((s) => {
    const e = s.election!;
    return `- \`${s.name}\`: each acquisition is a leadership (\`election.campaign()\` resolved), its fence the term, its window [entry, min(exit, validity end)] with the exit taken when the term's signal aborted (a loss, or the start of \`resign()\`) and the validity end moved by the leader's renewals (it reads \`term.validity\` every 50 ms). ` +
      `${fmt(e.leaderships)} leaderships with lease left at entry, ${fmt(e.lost)} told of a loss by their signal; ` +
      `**${fmt(e.termInversions)}** terms not above every earlier leader's (in order of entry); **${fmt(e.pausedNotTold)}** leaders paused past the lease whose signal did not abort with a loss (0 required for both).`;
  }).join('\n')}\n\n`;
}

function badInputSection(bad: BadInputResult | undefined): string {
  if (bad === undefined) return '_bench/results/bad-input.json is missing: run `npm run test:integration` first._';
  const functions = Object.entries(bad.functions).sort(([a], [b]) => a.localeCompare(b));
  const categories = Object.entries(bad.categories).sort(([, a], [, b]) => b - a).map(([c, n]) => `${c} ${fmt(n)}`).join(', ');
  return [
    `**${fmt(bad.tried)} invalid inputs tried, ${fmt(bad.handled)} handled** (${bad.handled === bad.tried ? 'all' : '**not all**'}): each caused no unhandled rejection and left no key on any master, and each gave its typed error naming the argument, option or flag (the class, \`code\` and name are asserted), except ${fmt(bad.resolving)} whose documented answer is a result (a second \`release()\` says \`{ expired: true }\`, a second \`quit()\` does nothing, …), which is asserted instead. Generated by \`test/integration/bad-input.test.ts\` (part of \`npm test\`), which writes bench/results/bad-input.json.`,
    '',
    `By kind: ${categories}. CLI flags covered: ${fmt(bad.cliFlags)}.`,
    '',
    '| function or command | inputs | handled |',
    '|---|---|---|',
    ...functions.map(([name, f]) => `| \`${name}\` | ${fmt(f.tried)} | ${fmt(f.handled)} |`),
  ].join('\n');
}

export function renderMarkdown(result: FaultsResult, bad: BadInputResult | undefined, simulation?: SimulationSummary): string {
  const s = result.settings;
  const clock = result.scenarios.find((r) => r.method !== undefined)?.method;
  return `# Reliability

_Generated by \`npm run faults\` from bench/results/faults.json, bad-input.json and simulate.json; do not edit by hand._

Host: ${hostLine(result.host)}

## Fault injection

Each scenario starts ${s.masters} fresh local masters and one more redis-server for the fenced log. ${s.workers} worker threads of
the load generator (\`tools/src/load\`, the same piscina runner as \`pipelock loadtest\`) run ${s.contenders} closed-loop contenders each
over ${s.resources} hot resources: acquire with a fencing token (lock ${fmt(s.lockMs)} ms, ${s.retryCount} retries after ${s.retryDelayMs}±${s.retryJitterMs} ms,
nodeTimeout ${s.nodeTimeoutMs} ms), record the entry, write to the fenced log, hold ${s.holdMs} ms (unless the scenario says
otherwise), write again (the commit), record the exit, release.
Contention runs ${fmt(s.beforeMs)} ms before the fault and ${fmt(s.afterMs)} ms after it ends${result.mode === 'short' ? ' (this is the short form: faults and these times halved)' : ''}.

The checker reads only evidence the lock client cannot shape:
- **Ledger**: a SharedArrayBuffer that every worker writes with Atomics; per section the entry, the exit and the end of
  validity (entry + the lock's remaining validity), all on process.hrtime, the monotonic clock every thread shares.
  A **violation** is a section entered while another holder of the resource was inside its window
  [entry, min(exit, validity end)]. A holder past its validity is outside, which is Redlock's promise: the lock is
  exclusive for its validity, not for as long as a paused holder believes it holds it.
- **Fenced log** on the separate server: one Lua script appends an entry unless its fence is below one it accepted for
  that resource (an equal fence is the same holder's second write) and counts rejections itself; its tally must equal the
  holders' and its fences must never fall. A holder overlapped by a newer one commits after the newer one wrote: rejected.
- **Fence inversions**: a holder that entered after another's section ended but got a fence not above it (0 required everywhere).
- **Recovery**: from the fault's end to the first acquisition after it, on the slowest resource; **longest gap**: the
  longest time any resource went without a new holder (the outage, if any), and when it began (ms after the fault began).
- **Keys**: after the contenders released and quit, lock keys still on a master, and keys with no TTL (0 required).

${scenarioTable(result)}

Failed cycles are expected under contention: \`RESOURCE_LOCKED\` is a contender losing to a holder after its retries;
\`RELEASED_EXPIRED\` is a release that found the lock already expired (a paused holder, or a master that lost it).

${electionDetails(result)}### What the unsafe scenarios show

${violationDetails(result)}

- \`kill-restart-at-once\` is the case the Redlock page warns about (crash recovery): a master that restarts empty at once forgets the locks it
  granted, so a holder with a bare majority that included it is down to a minority and a second client can win a
  majority with the restarted master. The cure is Redlock's delayed restart (\`kill-delayed-restart\`) or fsync'd
  persistence. Fencing tokens still rise (the counter of a master restarted empty restarts from its clock in µs), so
  storage that checks them keeps rejecting the older holder's writes.
- \`clock-jump\`: ${clock ?? 'not run'}. A jump of the lock's duration expires the holder's key on that master at once:
  the same loss as a restart without persistence, which is why Redlock assumes clocks that move at nearly the same rate.

## Scripted fault scenarios

${scriptedSection(result.scripts)}

## Simulation

${simulationSection(simulation)}

## Bad input

${badInputSection(bad)}
`;
}

export const FAULTS_JSON = join(ROOT, 'bench', 'results', 'faults.json');

/** Writes RELIABILITY.md from a full run's result (default: the one in bench/results) and bad-input.json; returns the path written. */
export async function renderReliability(given?: FaultsResult): Promise<string> {
  const result = given ?? JSON.parse(await readFile(FAULTS_JSON, 'utf8')) as FaultsResult;
  const bad = await readFile(join(ROOT, 'bench', 'results', 'bad-input.json'), 'utf8').then((text) => JSON.parse(text) as BadInputResult, () => undefined);
  const simulation = await readFile(join(ROOT, 'bench', 'results', 'simulate.json'), 'utf8').then((text) => JSON.parse(text) as SimulationSummary, () => undefined);
  const path = join(ROOT, 'RELIABILITY.md');
  await writeFile(path, renderMarkdown(result, bad, simulation));
  return path;
}
