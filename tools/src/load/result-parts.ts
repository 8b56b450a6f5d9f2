import { addCounts } from './counts.js';
import { mergeOperations, OP_NAMES, type OpName, type PartReport, type PartResult, type RunResult, type WorkerReport } from './result.js';

/**
 * The run's parts: per mix entry and per stage, added up over the workers. A run of one entry (or
 * one stage) did not split its cycles: that part is the whole run. `seconds`: each stage's
 * measured length (the last one cut short by a stop); mix entries share the whole window.
 */
export function partsOf(result: RunResult, reports: readonly WorkerReport[],
  names: { readonly mix: readonly string[]; readonly stages: readonly string[] }, seconds: readonly number[]):
  Pick<RunResult, 'mix' | 'stages'> {
  const whole = (name: string, s: number): PartResult => ({ name, cycles: result.cycles, throughput: s > 0 ? result.cycles / s : 0,
    errors: result.errors, operations: result.operations });
  const split = (of: (r: WorkerReport) => readonly PartReport[] | undefined, list: readonly string[],
    secondsOf: (i: number) => number): PartResult[] => {
    if (list.length === 1) return [whole(list[0]!, secondsOf(0))];
    return list.map((name, i) => {
      const parts = reports.map((r) => of(r)?.[i]).filter((p) => p !== undefined);
      return partOf(name, parts, secondsOf(i));
    });
  };
  return {
    mix: split((r) => r.mix, names.mix, () => result.measuredSeconds),
    stages: split((r) => r.stages, names.stages, (i) => seconds[i] ?? 0),
  };
}

function partOf(name: string, parts: readonly PartReport[], seconds: number): PartResult {
  const errors: Record<string, number> = {};
  let cycles = 0;
  for (const part of parts) {
    cycles += part.cycles;
    addCounts(errors, part.errors);
  }
  return { name, cycles, throughput: seconds > 0 ? cycles / seconds : 0, errors,
    operations: mergeOperations(parts.map((p) => p.histograms)) };
}

/**
 * Merged runs keep their parts when every run has the same ones (names in order): counts add,
 * histograms add exactly, throughputs sum (runs side by side on several machines).
 */
export function mergeParts(results: readonly RunResult[]): Pick<RunResult, 'mix' | 'stages'> {
  const merge = (of: (r: RunResult) => readonly PartResult[] | undefined): PartResult[] | undefined => {
    const first = of(results[0]!);
    if (first === undefined || !results.every((r) => of(r)?.map((p) => p.name).join('\n') === first.map((p) => p.name).join('\n')))
      return undefined;
    return first.map((part, i) => {
      const all = results.map((r) => of(r)![i]!);
      const errors: Record<string, number> = {};
      for (const p of all) addCounts(errors, p.errors);
      const histograms =
        all.map((p) => Object.fromEntries(OP_NAMES.map((op) => [op, p.operations[op].histogram])) as Record<OpName, string>);
      return { name: part.name, cycles: all.reduce((n, p) => n + p.cycles, 0), throughput: all.reduce((n, p) => n + p.throughput, 0),
        errors, operations: mergeOperations(histograms) };
    });
  };
  const mix = merge((r) => r.mix);
  const stages = merge((r) => r.stages);
  return { ...(mix === undefined ? {} : { mix }), ...(stages === undefined ? {} : { stages }) };
}
