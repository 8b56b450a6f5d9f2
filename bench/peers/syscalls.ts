/**
 * The client process's read and write system calls over a window, from /proc/self/io (`syscr`,
 * `syscw`: every read- and write-family call, sockets included; Linux only). bench:peers reports
 * them per cycle per master: the lean connection's one write per master per flush shows here.
 */
import { readFileSync } from 'node:fs';

export interface Syscalls {
  readonly read: number;
  readonly write: number;
}

/** The counts so far, or undefined where /proc/self/io is not there. */
export function syscalls(): Syscalls | undefined {
  let text: string;
  try {
    text = readFileSync('/proc/self/io', 'utf8');
  } catch {
    return undefined;
  }
  const field = (name: string): number => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { read: field('syscr'), write: field('syscw') };
}

/** `after` less `before`, ÷ cycles ÷ masters; undefined when either is. */
export function perCyclePerMaster(before: Syscalls | undefined, after: Syscalls | undefined, cycles: number, masters: number): Syscalls | undefined {
  if (before === undefined || after === undefined || cycles === 0) return undefined;
  const per = cycles * masters;
  return { read: (after.read - before.read) / per, write: (after.write - before.write) / per };
}
