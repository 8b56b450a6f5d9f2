import type { SeedValue } from '../master/index.js';

/** The connections of one side: pipelock's main connection, another client's, and two watch connections (RESP3, tracking). */
export type Conn = 'main' | 'foreign' | 'w0' | 'w1';
export const kWatches = ['w0', 'w1'] as const;

/** One step of a sequence, run on both sides. */
export type Step =
  /** A command, on the real server inside MULTI after a TIME (which sets the simulated clock). */
  | { readonly kind: 'cmd'; readonly conn: Conn; readonly args: readonly string[]; readonly ttlReply?: boolean }
  /** A key of a type no simulated command writes (a list, a set): RPUSH/SADD there, seeded here. */
  | { readonly kind: 'plant'; readonly key: string; readonly value: SeedValue }
  /** FLUSHALL (the master-level fault). */
  | { readonly kind: 'flush' }
  /** Real time passes (expiry runs). */
  | { readonly kind: 'sleep'; readonly ms: number };

/** One line per step, for failure reports and replays. */
export function describe(step: Step): string {
  switch (step.kind) {
    case 'cmd':
      return `${step.conn}: ${step.args.map((arg) => (arg.length > 60 ? `<${arg.length} chars: ${JSON.stringify(arg.slice(0, 24))}…>` : JSON.stringify(arg))).join(' ')}`;
    case 'plant':
      return `plant ${JSON.stringify(step.key)} ${JSON.stringify(step.value)}`;
    case 'flush':
      return 'FLUSHALL';
    case 'sleep':
      return `sleep ${step.ms} ms`;
  }
}
