/**
 * The lean connection's own deterministic counts, for bench:ci to call beside its others (kept in
 * a file of its own so the gate's main loop stays as it is): socket writes per flush (commands per
 * write: how much each write gathers) and writes and reply chunks per cycle per master. Commands and
 * writes are fixed by how the engine gathers a tick's operations, not by the machine's load; reply
 * chunks per write do move with load (a slow reader finds more replies waiting), so they are printed,
 * not judged.
 */
import type { DrainableContender } from '../peers/contender.js';
import { leanStats, resetLeanStats } from '../../src/transport/lean/stats.js';
import { runCycles } from './cycles.js';

export interface LeanFigures {
  /** Commands written per socket write, over every master. */
  readonly commandsPerWrite: number;
  readonly writesPerCyclePerMaster: number;
  readonly readsPerCyclePerMaster: number;
}

/** Runs `cycles` at `concurrency` on `contender` (pipelock on lean connections) and reads the counters. */
export async function measureLean(contender: DrainableContender, masters: number, concurrency: number, cycles: number): Promise<LeanFigures> {
  resetLeanStats();
  await runCycles(contender, concurrency, cycles);
  // The drain's PING per master (runCycles' last step) is not the cycles': one write, command and chunk each.
  const writes = leanStats.writes - masters;
  const commands = leanStats.commands - masters;
  const reads = leanStats.reads - masters;
  return {
    commandsPerWrite: writes > 0 ? commands / writes : NaN,
    writesPerCyclePerMaster: writes / cycles / masters,
    readsPerCyclePerMaster: reads / cycles / masters,
  };
}
