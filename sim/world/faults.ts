import type { Random } from '../diff/random.js';
import type { History } from './history.js';
import type { Host } from './host.js';
import type { Network } from './network.js';
import type { Proc } from './process.js';

/** Which faults a scenario lets the seed choose. `unsafe` adds those outside Redlock's assumptions. */
export interface FaultMix {
  readonly count: number;
  readonly unsafe: boolean;
  /** Weight of wall-clock jumps among the faults (1 unless a scenario aims at them). */
  readonly dateJumps?: number;
  /** Only this fault (a scenario aimed at one). */
  readonly only?: 'restart';
}

/**
 * Schedules the seed's faults within [0, end): process pauses (its timers and replies stall), master
 * pauses (commands queue), restarts that lose every key and stay down longer than any lock's TTL
 * (Redlock's delayed restart, so still safe), dropped connections (in-flight commands lost or run),
 * partitions between one process and one master, and wall-clock jumps in a process (Date.now only;
 * pipelock's validity runs on performance.now). With `unsafe`: restarts without the delay and a
 * master's clock jumping forward, which Redlock cannot survive: the history marks the run.
 */
export function scheduleFaults(random: Random, mix: FaultMix, end: number, maxTtl: number, procs: readonly Proc[], hosts: readonly Host[], net: Network, history: History): void {
  const world = hosts[0]!.world;
  for (let i = 0; i < mix.count; i++) {
    const at = random.next() / 2 ** 32 * end;
    const kind = mix.only ?? random.weighted([
      [3, 'proc-pause'], [3, 'master-pause'], [2, 'restart'], [3, 'drop'], [2, 'partition'], [mix.dateJumps ?? 1, 'date-jump'],
      ...(mix.unsafe ? [[1, 'restart-now'], [1, 'clock-jump']] as const : []),
    ] as const);
    const proc = random.pick(procs);
    const host = random.pick(hosts);
    const ms = random.between(1, 1500);
    world.at(at, () => {
      switch (kind) {
        case 'proc-pause':
          proc.pause(ms);
          history.log('fault', `p${proc.id} paused ${ms} ms`);
          break;
        case 'master-pause':
          host.pausedUntil = Math.max(host.pausedUntil, world.now + ms);
          history.log('fault', `${host.name} paused ${ms} ms`);
          break;
        case 'restart':
          history.log('fault', `${host.name} restarts empty, down ${maxTtl + 100} ms`);
          host.restart(maxTtl + 100);
          break;
        case 'restart-now':
          history.unsafeFaults.push(`${host.name} restarted empty at once (${world.now.toFixed(1)})`);
          history.log('fault', `${host.name} restarts empty at once (unsafe)`);
          host.restart(random.between(0, 50));
          break;
        case 'clock-jump':
          history.unsafeFaults.push(`${host.name}'s clock jumped ${ms} ms forward (${world.now.toFixed(1)})`);
          history.log('fault', `${host.name} clock jumps ${ms} ms forward (unsafe)`);
          host.offset += ms;
          break;
        case 'drop': {
          const mine = net.clients.filter((c) => c.proc === proc && c.host === host);
          history.log('fault', `connections p${proc.id}–${host.name} dropped`);
          for (const client of mine) client.dropConnection();
          break;
        }
        case 'partition':
          history.log('fault', `p${proc.id}–${host.name} partitioned ${ms} ms`);
          net.partition(proc, host, ms);
          break;
        case 'date-jump':
          history.log('fault', `p${proc.id} wall clock jumps ${ms - 750} ms`);
          proc.dateOffset += ms - 750;
          break;
      }
    });
  }
}
