import type { RunResult } from './run.js';

/** How many trace lines a failure prints: the last before the first violation's resource went wrong. */
const kTraceLines = 60;

/**
 * A failed run as a reader needs it: the seed and scenario (and the command that replays it), each
 * violation, and the tail of the trace for the resource concerned (its holders, its operations,
 * the faults, and, in a verbose replay, every message).
 */
export function describeFailure(result: RunResult, root?: string): string {
  const out: string[] = [];
  const kind = result.verdict === 'violation' ? 'VIOLATION' : 'EXPECTED UNSAFETY (faults outside Redlock\'s assumptions, or a holder acting straight after a pause)';
  out.push(`${kind}: scenario ${result.scenario}, seed ${result.seed}, history ${result.hash}`);
  for (const fault of result.unsafe) out.push(`  unsafe fault: ${fault}`);
  for (const v of result.violations) out.push(`  ${v.property}: ${v.text}`);
  const first = result.violations.find((v) => v.resource !== undefined);
  const resource = first?.resource;
  const until = (first?.at ?? Infinity) + 1;
  const lines = result.history.lines.filter((line) => Number.parseFloat(line) <= until && (resource === undefined || line.includes(` ${resource}`) || line.includes('fault') || /[→←⇠]/.test(line)));
  out.push(`  trace${resource === undefined ? '' : ` (${resource}, faults${result.history.verbose ? ', messages' : ''})`}, last ${kTraceLines} lines:`);
  for (const line of lines.slice(-kTraceLines)) out.push(`    ${line}`);
  out.push(`  replay: npm run simulate -- --scenario ${result.scenario} --seed ${result.seed}${root === undefined ? '' : ` (sources: ${root})`}`);
  return out.join('\n');
}
