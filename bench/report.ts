/**
 * `npm run bench:report`: BENCHMARKS.md from bench/results/peers.json, micro.json and (if present) renewal.json, overload.json, contended.json, kinds.json, election.json, profile.json, the concurrency-1 profiles (profile-c1*.json) and flush-window.json.
 * Every figure comes from the JSON; nothing here is typed in by hand except the method and the
 * notes on missed targets (bench/notes.ts).
 */
import { renderContended, type ContendedResult } from './contended/render.js';
import { renderElection, type ElectionResult } from './election/render.js';
import { renderFlushWindow } from './peers/flush-window.js';
import { renderKinds, type KindsResult } from './kinds/render.js';
import { renderProfile, type ProfileResult } from './profile/analyze.js';
import { renderProfileTrio, type ProfileTrio } from './profile/compare.js';
import { renderOverload, type OverloadResult } from './overload/render.js';
import { renderRenewal, type RenewalResult } from './renewal/render.js';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hostLine, ROOT } from './lib/host.js';
import { ratio, summarize, type ContenderSummary, type Summary } from './lib/summary.js';
import type { Spread } from './lib/stats.js';
import type { MicroResult } from './micro/run.js';
import { kNotesFrom, MISSED_TARGET_NOTES } from './notes.js';
import { judgeTargets } from './lib/targets.js';
import { CONFIGS, contenderInfo, PEERS, QUORUM_CEILING, repsOf } from './peers/contender.js';
import type { PeersResult } from './peers/harness.js';
import { fmtInt, fmtX, fmtMs, fmtUs } from './lib/format.js';


const spreadInt = (s: Spread): string => `${fmtInt(s.median)} (${fmtInt(s.min)}–${fmtInt(s.max)})`;

function get(summary: Summary, config: string, contender: string): ContenderSummary | undefined {
  return summary[config]?.[contender];
}

function configTable(summary: Summary, config: string, contenders: readonly string[]): string {
  const workload = CONFIGS.find((c) => c.id === config);
  const hot = workload?.keys === 1;
  const cluster = workload?.cluster !== undefined;
  // A cluster configuration runs only the contenders that can: columns for the peers measured.
  // Ratio columns: the measured peers, and on Valkey the script path.
  const peers = [...PEERS, 'pipelock-scripts'].filter((peer) => contenders.includes(peer) && get(summary, config, peer) !== undefined && (peer !== 'pipelock-scripts' || workload?.valkey !== undefined));
  const head = [
    'contender', hot ? 'successes/s median (min–max)' : 'cycles/s median (min–max)', ...(hot ? ['refused/s'] : []),
    '× quorum ceiling', ...peers.map((peer) => `× ${contenderInfo(peer).label}`),
    'acquire p50 / p99 / p99.9 ms', 'release p50 / p99 / p99.9 ms', `client CPU µs/${hot ? 'attempt' : 'cycle'} (kernel)`, `Redis CPU µs/${hot ? 'attempt' : 'cycle'}`, `Redis commands/${hot ? 'attempt' : 'cycle'}`,
    ...(cluster ? ['script calls/cycle', 'script calls per shard per tick (ops/tick)'] : []),
  ];
  const rows = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`];
  for (const id of contenders) {
    const s = get(summary, config, id);
    if (s === undefined) continue;
    const name = id === 'pipelock' ? '**pipelock**' : contenderInfo(id).label;
    const failed = s.failedRuns > 0 ? ` ⚠ ${s.failedRuns} failed run(s)` : '';
    const errors = s.errors > 0 ? ` ⚠ ${s.errors} errors` : '';
    rows.push(`| ${[
      name + failed + errors,
      spreadInt(s.cyclesPerSec),
      ...(hot ? [fmtInt(s.refusedPerSec.median)] : []),
      fmtX(ratio(summary, config, id, QUORUM_CEILING)),
      ...peers.map((peer) => fmtX(ratio(summary, config, id, peer))),
      `${fmtMs(s.acquireP50.median)} / ${fmtMs(s.acquireP99.median)} / ${fmtMs(s.acquireP999.median)}`,
      `${fmtMs(s.releaseP50.median)} / ${fmtMs(s.releaseP99.median)} / ${fmtMs(s.releaseP999.median)}`,
      Number.isFinite(s.clientSystemCpuUsPerCycle.median) ? `${fmtUs(s.clientCpuUsPerCycle.median)} (${fmtUs(s.clientSystemCpuUsPerCycle.median)})` : fmtUs(s.clientCpuUsPerCycle.median),
      fmtUs(s.redisCpuUsPerCycle.median),
      Number.isFinite(s.redisCommandsPerCycle.median) ? s.redisCommandsPerCycle.median.toFixed(2) : '–',
      ...(cluster ? [fmtUs(s.scriptCallsPerCycle.median), Number.isFinite(s.scriptCallsPerShardPerTick.median) ? `${fmtUs(s.scriptCallsPerShardPerTick.median)} (${fmtUs(s.opsPerTick.median)})` : '–'] : []),
    ].join(' | ')} |`);
  }
  return rows.join('\n');
}

export function renderMarkdown(peers: PeersResult, micro: MicroResult | undefined, renewal?: RenewalResult, overload?: OverloadResult, contended?: ContendedResult, kinds?: KindsResult, profile?: ProfileResult, profileC1?: ProfileTrio, election?: ElectionResult, renewalWorker?: RenewalResult,
  flushWindow?: PeersResult): string {
  const summary = summarize(peers.runs);
  const plan = peers.plan;
  const targets = judgeTargets(summary);
  const out: string[] = [];
  out.push('# Benchmarks', '');
  out.push('> Generated by `npm run bench:report` from `bench/results/peers.json` and `bench/results/micro.json`; do not edit by hand.', '');
  out.push(`**Host:** ${hostLine(peers.host)} (load avg at the end ${peers.loadavgEnd.toFixed(2)}; finished ${peers.finished})`, '');
  out.push('**Reproduce:**', '', '```sh', 'npm ci', 'npm run bench          # micro + peers (several minutes), then regenerates this file', `${plan.command}   # the peer run behind these tables`, 'npm run bench:report   # this file from the JSON', 'npm run bench:ci       # CI gate: script calls, bytes, allocations, CPU vs the ceiling per cycle', '```', '');

  out.push('## Targets', '');
  out.push('| target | measured | met |', '|---|---|:---:|');
  for (const t of targets) out.push(`| ${t.text} | ${t.figure} | ${t.met === undefined ? 'not measured' : t.met ? 'yes' : '**no**'} |`);
  const missed = targets.filter((t) => t.met === false);
  if (missed.length > 0) {
    out.push('', `**Why targets were missed** (${kNotesFrom}):`, '');
    for (const t of missed) out.push(`- *${t.text}*: ${MISSED_TARGET_NOTES[t.id] ?? 'not yet analysed (no note in bench/notes.ts).'}`);
  }
  out.push('');

  out.push('## How this is measured', '');
  out.push(
    `- ${plan.masters} local \`redis-server\` masters (\`startMasters\`), shared by the client and the servers on the same host; FLUSHALL before every measurement.`,
    `- Every measurement is a fresh child process (\`bench/peers/run-one.ts\`) running one contender: a closed loop of *concurrency* workers, each \`acquire([key], ${plan.ttlMs} ms)\` → \`release()\` → next, no think time; keys drawn uniformly from 1M, or one hot key.`,
    `- ${fmtInt(plan.warmupMs)} ms warm-up, then ${fmtInt(plan.durationMs)} ms measured; ${repsLine(plan)}, interleaved (every contender once per configuration, then all again, starting contender rotated). Figures are medians with min–max over the repetitions.`,
    '- Ratios (`× …`) are the median of per-repetition ratios of cycles/s: each pair ran back to back, which cancels most of what a busy machine does to both.',
    '- Latencies from HdrHistogram (µs resolution) over the measured window; acquire covers every attempt (won or refused), release every completed cycle.',
    '- Client CPU: `process.cpuUsage()` over the window ÷ cycles, its kernel part (`system`) in brackets. Redis CPU: `used_cpu_sys + used_cpu_user` from `INFO cpu`, summed over the masters, before/after the window ÷ cycles; Redis commands: every `INFO commandstats` call the same way (a script\'s own `SET`/`DEL` counted besides the script call, INFO left out). On the hot key all are per attempt.',
    '- Every contender makes one attempt per acquisition (no retries) and no automatic extension. Peers run on ioredis with its defaults (no per-command timeout).',
    '- The ceilings have no lock logic: @redis/client, `SET key token NX PX ttl` to every master, then an `EVALSHA` compare-and-delete to every master, either waiting for all replies or returning at the quorum; the coalesced ceiling gathers the same commands per master per tick into one `EVALSHA` (pipelock\'s flush rule). Like pipelock, the ceilings send every command with `{ timeout: 0 }`: @redis/client 6.x otherwise arms a 5 s `AbortSignal.timeout` per command, which costs a lot of throughput and would make the yardstick slower than what it measures.',
    '- A failed acquisition (the hot key) undoes itself with an owner-checked delete on the masters that may have taken it, in every contender.',
    '',
  );
  out.push('| contender | what it is |', '|---|---|');
  for (const id of plan.contenders) {
    const info = contenderInfo(id);
    const versions = info.packages.map((name) => `${name} ${peers.host.packages[name] ?? '?'}`).join(', ');
    out.push(`| ${info.label} | ${info.note} (${versions}) |`);
  }
  out.push('');

  for (const config of CONFIGS) {
    if (!plan.configs.includes(config.id)) continue;
    out.push(`## ${config.label}`, '');
    if (config.cluster !== undefined) out.push(clusterMethod(config.cluster, plan.contenders), '');
    out.push(configTable(summary, config.id, plan.contenders), '');
  }

  if (flushWindow !== undefined) out.push(renderFlushWindow(flushWindow));
  if (renewal !== undefined) out.push(renderRenewal(renewal));
  if (renewalWorker !== undefined) out.push(renderRenewal(renewalWorker, "Renewal off the main thread: renewal 'worker' against 'main', steady state"));
  if (overload !== undefined) out.push(renderOverload(overload));
  if (contended !== undefined) out.push(renderContended(contended));
  if (kinds !== undefined) out.push(renderKinds(kinds));
  if (election !== undefined) out.push(renderElection(election));
  if (profile !== undefined) out.push(renderProfile(profile));
  if (profileC1 !== undefined) out.push(renderProfileTrio(profileC1));

  if (micro !== undefined) {
    out.push('## Micro benchmarks (hot path)', '');
    out.push(`tinybench, ${micro.timeMs} ms per task; \`bench/micro/suites.ts\`. ${hostLine(micro.host)}`, '');
    out.push('| task | ops/s | mean ns/op | p99 ns/op | ± % |', '|---|---:|---:|---:|---:|');
    for (const t of micro.tasks) out.push(`| ${t.name} | ${fmtInt(t.opsPerSec)} | ${fmtInt(t.meanNs)} | ${fmtInt(t.p99Ns)} | ${t.rme.toFixed(1)} |`);
    out.push('');
  }
  return out.join('\n');
}

/** "5 repetitions" or, where configurations ask for more than --reps, both counts. */
function repsLine(plan: PeersResult['plan']): string {
  const more = CONFIGS.filter((c) => plan.configs.includes(c.id) && repsOf(c, plan.reps) > plan.reps);
  if (more.length === 0) return `${plan.reps} repetitions`;
  return `${plan.reps} repetitions (${repsOf(more[0]!, plan.reps)} at ${more.map((c) => `concurrency ${c.concurrency}`).join(', ')}: a cycle there is a few hundred µs, and the paired ratios need more pairs)`;
}

/** How the cluster configuration differs from the others, and which contenders run in it. */
function clusterMethod(cluster: { readonly members: number; readonly shards: number }, contenders: readonly string[]): string {
  const on = contenders.filter((id) => contenderInfo(id).onCluster !== undefined);
  return [
    `- ${cluster.members} local Redis Clusters of ${cluster.shards} shards each (masters only, \`startClusters\`), each one Redlock member (N = ${cluster.members}), on the same host, started once for this configuration; the same closed loop as above on random keys, so a lock's key lives on any shard.`,
    `- Only the contenders that can run on cluster members: ${on.map((id) => `${contenderInfo(id).label}, ${contenderInfo(id).onCluster ?? ''}`).join('; ')}.`,
    '- Script calls: EVALSHA + EVAL over the window from `INFO commandstats`, summed over every shard. A `SET NX` sent outside a script (the quorum ceiling\'s acquire) is not counted: commandstats cannot tell it from the SETs scripts run.',
    '- Ticks: pipelock\'s coalesced batches per member (the `pipelock:node-call` diagnostics channel, subscribed in every run of this configuration); per shard per tick = a member\'s script calls ÷ its shards ÷ its ticks. Random keys rarely share a slot, and one script call carries one slot (docs/deployments.md).',
  ].join('\n');
}

async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

{
  const peers = await readJson<PeersResult>(join(ROOT, 'bench', 'results', 'peers.json'));
  if (peers === undefined) throw new Error('bench/results/peers.json is missing: run `npm run bench` first');
  const micro = await readJson<MicroResult>(join(ROOT, 'bench', 'results', 'micro.json'));
  const renewal = await readJson<RenewalResult>(join(ROOT, 'bench', 'results', 'renewal.json'));
  const renewalWorker = await readJson<RenewalResult>(join(ROOT, 'bench', 'results', 'renewal-worker.json'));
  const overload = await readJson<OverloadResult>(join(ROOT, 'bench', 'results', 'overload.json'));
  const contended = await readJson<ContendedResult>(join(ROOT, 'bench', 'results', 'contended.json'));
  const kinds = await readJson<KindsResult>(join(ROOT, 'bench', 'results', 'kinds.json'));
  const profile = await readJson<ProfileResult>(join(ROOT, 'bench', 'results', 'profile.json'));
  const election = await readJson<ElectionResult>(join(ROOT, 'bench', 'results', 'election.json'));
  const flushWindow = await readJson<PeersResult>(join(ROOT, 'bench', 'results', 'flush-window.json'));
  const [ceiling, before, after] = await Promise.all(['profile-c1-ceiling.json', 'profile-c1-before.json', 'profile-c1.json'].map((name) => readJson<ProfileResult>(join(ROOT, 'bench', 'results', name))));
  const profileC1 = ceiling !== undefined && before !== undefined && after !== undefined ? { ceiling, before, after } : undefined;
  await writeFile(join(ROOT, 'BENCHMARKS.md'), renderMarkdown(peers, micro, renewal, overload, contended, kinds, profile, profileC1, election, renewalWorker, flushWindow));
  console.log('bench:report: wrote BENCHMARKS.md');
}
