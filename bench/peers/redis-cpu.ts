import { RedisClient as RedisClientClass } from '@redis/client';

/** `used_cpu_sys + used_cpu_user` in seconds, from an `INFO cpu` reply. */
export function parseInfoCpu(info: string): number {
  const sys = /^used_cpu_sys:([\d.]+)/m.exec(info);
  const user = /^used_cpu_user:([\d.]+)/m.exec(info);
  if (sys === null || user === null) throw new Error(`INFO cpu without used_cpu_sys/used_cpu_user: ${info.slice(0, 200)}`);
  return Number(sys[1]) + Number(user[1]);
}

/** What the masters executed, summed: CPU seconds, commands (a script's own calls included) and script calls. */
export interface RedisSample {
  readonly seconds: number;
  readonly commands: number;
  readonly scriptCalls: number;
}

/**
 * Commands and script calls from an `INFO commandstats` reply. Redis counts the commands a script
 * runs under their own names as well, so `commands` is everything executed; INFO, which this
 * reader sends itself, is left out.
 */
export function parseCommandStats(info: string): { commands: number; scriptCalls: number } {
  let commands = 0;
  let scriptCalls = 0;
  for (const m of info.matchAll(/^cmdstat_([\w|]+):calls=(\d+)/gm)) {
    const name = m[1]!;
    if (name === 'info') continue;
    const calls = Number(m[2]);
    commands += calls;
    if (name === 'evalsha' || name === 'eval' || name === 'fcall' || name === 'evalsha_ro' || name === 'eval_ro') scriptCalls += calls;
  }
  return { commands, scriptCalls };
}

/** A plain connection to a master for reading INFO beside a benchmark, never on its hot path. */
export interface InfoClient {
  connect(): Promise<unknown>;
  sendCommand(args: readonly string[], options?: { timeout?: number }): Promise<unknown>;
  destroy(): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** One connected InfoClient per URL, in order. */
export async function openInfoClients(urls: readonly string[]): Promise<InfoClient[]> {
  const factory = RedisClientClass.factory({}) as unknown as (options: object) => InfoClient;
  const clients = urls.map((url) => factory({ url }));
  for (const client of clients) client.on('error', () => undefined);
  await Promise.all(clients.map((client) => client.connect()));
  return clients;
}

/** Reads the masters' CPU time and command counts (summed over all of them) on connections of its own. */
export class RedisCpu {
  readonly #clients: InfoClient[];

  private constructor(clients: InfoClient[]) {
    this.#clients = clients;
  }

  /** How many masters it samples. */
  get masters(): number {
    return this.#clients.length;
  }

  static async open(urls: readonly string[]): Promise<RedisCpu> {
    return new RedisCpu(await openInfoClients(urls));
  }

  async sample(): Promise<RedisSample> {
    const infos = await Promise.all(this.#clients.map((client) => client.sendCommand(['INFO', 'cpu', 'commandstats'])));
    let seconds = 0;
    let commands = 0;
    let scriptCalls = 0;
    for (const info of infos) {
      seconds += parseInfoCpu(String(info));
      const stats = parseCommandStats(String(info));
      commands += stats.commands;
      scriptCalls += stats.scriptCalls;
    }
    return { seconds, commands, scriptCalls };
  }

  close(): void {
    for (const client of this.#clients) client.destroy();
  }
}
