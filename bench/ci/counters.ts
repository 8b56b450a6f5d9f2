/**
 * What the masters themselves count, read over connections of our own with one
 * `INFO commandstats stats cpu` per master: how many script calls they ran, how many bytes they
 * received and how much CPU they spent. Unlike throughput these do not depend on how busy the
 * machine is: the bytes of a cycle are fixed by its keys and tokens, the calls by how operations
 * are gathered into batches.
 */
import { openInfoClients, type InfoClient } from '../peers/redis-cpu.js';

/** One master's counters at one moment (or the difference of two readings). */
export interface MasterCounters {
  /** EVALSHA + EVAL: top-level script calls (commands a script runs are counted under their own names). */
  readonly scriptCalls: number;
  /** Every command, including those a script ran and our own INFO. */
  readonly commands: number;
  /** total_net_input_bytes: what clients sent, including our own INFO. */
  readonly inputBytes: number;
  /** used_cpu_sys + used_cpu_user, µs. */
  readonly cpuUs: number;
}

function field(info: string, name: string): number {
  const match = new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info);
  if (match === null) throw new Error(`INFO without ${name}: ${info.slice(0, 200)}`);
  return Number(match[1]);
}

/** `calls=` of one `cmdstat_<name>` line; 0 when the master never ran the command. */
function calls(info: string, command: string): number {
  const match = new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(info);
  return match === null ? 0 : Number(match[1]);
}

/** The counters of one `INFO commandstats stats cpu` reply. */
export function parseInfo(info: string): MasterCounters {
  return {
    scriptCalls: calls(info, 'evalsha') + calls(info, 'eval'),
    commands: field(info, 'total_commands_processed'),
    inputBytes: field(info, 'total_net_input_bytes'),
    // INFO prints seconds with 6 decimals; rounding to whole µs keeps the sums exact.
    cpuUs: Math.round((field(info, 'used_cpu_sys') + field(info, 'used_cpu_user')) * 1e6),
  };
}

export function subtract(after: MasterCounters, before: MasterCounters): MasterCounters {
  return {
    scriptCalls: after.scriptCalls - before.scriptCalls,
    commands: after.commands - before.commands,
    inputBytes: after.inputBytes - before.inputBytes,
    cpuUs: after.cpuUs - before.cpuUs,
  };
}

/** One connection per master, used only between measurements, never while one runs. */
export class CounterReader {
  readonly #clients: InfoClient[];

  private constructor(clients: InfoClient[]) {
    this.#clients = clients;
  }

  static async open(urls: readonly string[]): Promise<CounterReader> {
    return new CounterReader(await openInfoClients(urls));
  }

  /** Per master, in the order of the URLs. */
  async read(): Promise<MasterCounters[]> {
    const infos = await Promise.all(this.#clients.map((client) => client.sendCommand(['INFO', 'commandstats', 'stats', 'cpu'])));
    return infos.map((info) => parseInfo(String(info)));
  }

  close(): void {
    for (const client of this.#clients) client.destroy();
  }
}
