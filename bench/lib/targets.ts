/** The targets BENCHMARKS.md judges pipelock by, from the peer run's summary. */
import { ratio, type ContenderSummary, type Summary } from './summary.js';
import { contenderInfo, PEERS, QUORUM_CEILING } from '../peers/contender.js';
import { fmtX, fmtMs, fmtUs } from './format.js';

export interface Target {
  readonly id: string;
  readonly text: string;
  readonly figure: string;
  readonly met: boolean | undefined;
}


function get(summary: Summary, config: string, contender: string): ContenderSummary | undefined {
  return summary[config]?.[contender];
}

/** A target judged only when both of its figures were measured. */
function judged(values: readonly number[], met: boolean): boolean | undefined {
  return values.every(Number.isFinite) ? met : undefined;
}

/** The targets for pipelock, judged from the summary (issue figures; see docs/decisions/0006-lone-calls.md). */
export function judgeTargets(summary: Summary): Target[] {
  const targets: Target[] = [];
  const c1 = ratio(summary, 'c1', 'pipelock', QUORUM_CEILING);
  targets.push({ id: 'c1-ceiling', text: 'concurrency 1: cycles/s ≥ 0.97× the per-command quorum ceiling', figure: fmtX(c1), met: judged([c1], c1 >= 0.97) });
  // Every peer the run measured (a run of some contenders judges those): one not in it is named, not judged.
  const peerRatios = PEERS.map((peer) => ({ peer, r: ratio(summary, 'c1', 'pipelock', peer) }));
  const measured = peerRatios.filter(({ r }) => Number.isFinite(r));
  const unmeasured = peerRatios.filter(({ r }) => !Number.isFinite(r)).map(({ peer }) => contenderInfo(peer).label);
  targets.push({
    id: 'c1-peers',
    text: 'concurrency 1: cycles/s ≥ 1.05× every peer',
    figure: [...measured.map(({ peer, r }) => `${fmtX(r)} ${contenderInfo(peer).label}`), ...(unmeasured.length === 0 ? [] : [`not measured: ${unmeasured.join(', ')}`])].join(', '),
    met: measured.length === 0 ? undefined : measured.every(({ r }) => r >= 1.05),
  });
  const p = get(summary, 'c1', 'pipelock');
  const c = get(summary, 'c1', QUORUM_CEILING);
  if (p !== undefined && c !== undefined) {
    for (const [step, mine, theirs] of [['acquire', p.acquireP50.median, c.acquireP50.median], ['release', p.releaseP50.median, c.releaseP50.median]] as const) {
      targets.push({
        id: `c1-${step}-p50`,
        text: `concurrency 1: ${step} p50 within 10 µs of the quorum ceiling's`,
        figure: `${fmtMs(mine)} ms vs ${fmtMs(theirs)} ms (${mine - theirs >= 0 ? '+' : ''}${Math.round(mine - theirs)} µs)`,
        met: judged([mine, theirs], mine - theirs <= 10),
      });
    }
    const mine = p.clientCpuUsPerCycle.median;
    const theirs = c.clientCpuUsPerCycle.median;
    targets.push({ id: 'c1-cpu', text: 'concurrency 1: client CPU per cycle ≤ the quorum ceiling\'s', figure: `${fmtUs(mine)} vs ${fmtUs(theirs)} µs (${fmtX(mine / theirs)})`, met: judged([mine, theirs], mine <= theirs) });
  }
  for (const [config, goal] of [['c4', 1.4], ['c16', 1.7], ['c64', 1.8], ['c512', 2.5]] as const) {
    const r = ratio(summary, config, 'pipelock', QUORUM_CEILING);
    targets.push({ id: `${config}-ceiling`, text: `concurrency ${config.slice(1)}: ≥ ${goal}× the quorum ceiling's cycles/s`, figure: fmtX(r), met: judged([r], r >= goal) });
  }
  const hot = ratio(summary, 'hot64', 'pipelock', QUORUM_CEILING);
  targets.push({ id: 'hot-ceiling', text: 'hot key: successes/s ≥ the quorum ceiling\'s', figure: `${fmtX(hot)} the quorum ceiling's successes/s`, met: judged([hot], hot >= 1) });
  const hp = get(summary, 'hot64', 'pipelock');
  const hc = get(summary, 'hot64', QUORUM_CEILING);
  if (hp !== undefined && hc !== undefined) {
    const [pc, cc, pu, cu] = [hp.redisCommandsPerCycle.median, hc.redisCommandsPerCycle.median, hp.clientCpuUsPerCycle.median, hc.clientCpuUsPerCycle.median];
    targets.push({
      id: 'hot-refusals',
      text: 'hot key: an attempt as cheap as the quorum ceiling\'s (Redis commands and client CPU per attempt)',
      figure: `${fmtUs(pc)} vs ${fmtUs(cc)} commands, ${fmtUs(pu)} vs ${fmtUs(cu)} µs`,
      met: judged([pc, cc, pu, cu], pc <= cc && pu <= cu),
    });
  }
  targets.push(...valkeyTargets(summary));
  return targets;
}

/** On Valkey 9 (issue 31): the script-free path against the script path and the per-command ceiling, same masters, same run. */
function valkeyTargets(summary: Summary): Target[] {
  const targets: Target[] = [];
  const auto = get(summary, 'valkey64', 'pipelock');
  const scripts = get(summary, 'valkey64', 'pipelock-scripts');
  const ceiling = get(summary, 'valkey64', QUORUM_CEILING);
  if (auto !== undefined && scripts !== undefined && ceiling !== undefined) {
    const [a, s, c] = [auto.redisCpuUsPerCycle.median, scripts.redisCpuUsPerCycle.median, ceiling.redisCpuUsPerCycle.median];
    targets.push({
      id: 'valkey64-server-cpu',
      text: 'Valkey, concurrency 64: masters\' CPU per cycle ≤ 0.6× the script path\'s and ≤ 0.6× the per-command ceiling\'s',
      figure: `${fmtUs(a)} µs vs ${fmtUs(s)} (${fmtX(a / s)}) and ${fmtUs(c)} (${fmtX(a / c)})`,
      met: judged([a, s, c], a <= 0.6 * s && a <= 0.6 * c),
    });
  }
  const r = ratio(summary, 'valkey64', 'pipelock', QUORUM_CEILING);
  targets.push({ id: 'valkey64-ceiling', text: 'Valkey, concurrency 64: ≥ 2× the per-command ceiling\'s cycles/s', figure: fmtX(r), met: judged([r], r >= 2) });
  const paths = (['valkey1', 'valkey64', 'valkey512'] as const).map((config) => ({ config, r: ratio(summary, config, 'pipelock', 'pipelock-scripts') }));
  targets.push({
    id: 'valkey-vs-scripts',
    text: 'Valkey, concurrency 1, 64 and 512: cycles/s ≥ the script path\'s',
    figure: paths.map(({ config, r: x }) => `${fmtX(x)} at ${config.slice(6)}`).join(', '),
    met: judged(paths.map(({ r: x }) => x), paths.every(({ r: x }) => x >= 1)),
  });
  return targets;
}
