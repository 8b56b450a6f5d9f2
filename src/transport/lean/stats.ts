/** What every lean connection of the process did (writes, commands, reply chunks), for bench:peers and bench:ci. */
export const leanStats = { writes: 0, commands: 0, reads: 0 };

export function resetLeanStats(): void {
  leanStats.writes = 0;
  leanStats.commands = 0;
  leanStats.reads = 0;
}
