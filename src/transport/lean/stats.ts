/**
 * What every lean connection of the process did, for bench:peers and bench:ci: socket writes (one
 * per master per flush), commands written, reply chunks read. Plain counters: one add each.
 */
export const leanStats = { writes: 0, commands: 0, reads: 0 };

export function resetLeanStats(): void {
  leanStats.writes = 0;
  leanStats.commands = 0;
  leanStats.reads = 0;
}
