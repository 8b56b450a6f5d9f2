/**
 * Moving a master's clock forward. Redis stores each key's expiry as an absolute wall-clock time,
 * so a jump forward by D shortens every remaining TTL by D at once.
 *
 * The real thing: each master runs under libfaketime (Debian's `faketime` package) with
 * FAKETIME=% and FAKETIME_FOLLOW_FILE, so its wall clock is that file's mtime plus the time elapsed
 * since it started, and a jump is a utimes() on the file. libfaketime 0.9.10 deadlocks
 * redis-server's start-up on this glibc (see faketime/ftstubs.c); a small library preloaded after
 * it, built here with cc, removes the cause. Where any of that is missing, or the self-test after
 * start-up does not see the jump, the suite falls back to emulating the jump's effect on the keys,
 * and the results say which method ran and why.
 */
import { execFile } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { mkdtemp, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startMasters, type LocalMasters } from '../../src/testing/masters.js';
import { withClient } from '../../tools/src/shared/admin.js';

export interface ClockControl {
  /** How the jump is made, for the report. */
  readonly method: string;
  jump(master: number, ms: number): Promise<void>;
}

const run = promisify(execFile);
const kStubs = join(dirname(fileURLToPath(import.meta.url)), 'faketime');
const kLibCandidates = ['x86_64-linux-gnu', 'aarch64-linux-gnu', ''].map((arch) => join('/usr/lib', arch, 'faketime', 'libfaketimeMT.so.1'));

/**
 * What a jump does to the keys, done in one script: every key's TTL shortened by D (deleted when
 * it has less left). Atomic on the master, as a real jump is. Keys only; the master's TIME stays.
 */
const SHIFT_TTLS = `local d = tonumber(ARGV[1])
local n = 0
for _, k in ipairs(redis.call('KEYS', '*')) do
  local t = redis.call('PTTL', k)
  if t > 0 then
    if t <= d then redis.call('DEL', k) else redis.call('PEXPIRE', k, t - d) end
    n = n + 1
  end
end
return n`;

function ttlShift(masters: LocalMasters, why: string): ClockControl {
  return {
    method: `emulated (${why}): every key's TTL on the master shortened by D in one script, the effect a wall-clock jump of D has on expiry`,
    async jump(master, ms) {
      await withClient(masters.urls[master]!, (client) => client.sendCommand(['EVAL', SHIFT_TTLS, '0', String(ms)]));
    },
  };
}

let built: Promise<string> | undefined;

/** Builds the stub library once per process; resolves its path. */
function buildStubs(): Promise<string> {
  built ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pipelock-ftstubs-'));
    process.once('exit', () => {
      rmSync(dir, { recursive: true, force: true });
    });
    const out = join(dir, 'libftstubs.so');
    await run('cc', ['-shared', '-fPIC', '-O2', `-Wl,--version-script=${join(kStubs, 'ftstubs.map')}`, '-o', out, join(kStubs, 'ftstubs.c'), '-ldl']);
    return out;
  })();
  return built;
}

/** Jumps one master's clock by moving its clock file's mtime forward. */
async function jumpFile(file: string, ms: number): Promise<void> {
  const { mtimeMs } = await stat(file);
  const to = (mtimeMs + ms) / 1000;
  await utimes(file, to, to);
}

/** The master's TTL of a probe key before and after a jump of `ms`: the self-test. */
async function selfTest(url: string, file: string, ms: number): Promise<boolean> {
  return withClient(url, async (client) => {
    await client.sendCommand(['SET', 'pipelock:clock-probe', '1', 'PX', String(10 * ms)]);
    await jumpFile(file, ms);
    const left = Number(await client.sendCommand(['PTTL', 'pipelock:clock-probe']));
    await client.sendCommand(['DEL', 'pipelock:clock-probe']);
    await jumpFile(file, -ms);
    // 10·D set, D jumped: about 9·D left; a clock that did not move leaves about 10·D.
    return left > 0 && left < 9.5 * ms;
  });
}

/**
 * `count` masters whose clocks can jump, each with its own clock file (so one master's jump moves
 * only its own clock), or ordinary masters with the emulation when that cannot be had here.
 */
export async function clockedMasters(count: number): Promise<{ masters: LocalMasters; clock: ClockControl }> {
  const lib = [process.env.PIPELOCK_LIBFAKETIME ?? '', ...kLibCandidates].find((path) => path !== '' && existsSync(path));
  let why = '';
  if (lib === undefined) {
    why = 'libfaketime not found: apt-get install faketime, or set PIPELOCK_LIBFAKETIME';
  } else {
    let stubs: string | undefined;
    try {
      stubs = await buildStubs();
    } catch (error) {
      why = `could not build faketime/ftstubs.c with cc: ${(error as Error).message.split('\n')[0] ?? ''}`;
    }
    if (stubs !== undefined) {
      const dir = await mkdtemp(join(tmpdir(), 'pipelock-clocks-'));
      const files = Array.from({ length: count }, (_, i) => join(dir, `clock-${i}`));
      const sets: LocalMasters[] = [];
      try {
        for (const file of files) {
          await writeFile(file, '');
          const now = Date.now() / 1000;
          await utimes(file, now, now);
          sets.push(await startMasters({
            count: 1,
            env: {
              LD_PRELOAD: `${lib} ${stubs}`,
              FAKETIME: '%',
              FAKETIME_FOLLOW_FILE: file,
              FAKETIME_NO_CACHE: '1',
              FAKETIME_DONT_RESET: '1',
              // Only the wall clock moves: Redis times its own work on the monotonic clock.
              FAKETIME_DONT_FAKE_MONOTONIC: '1',
            },
          }));
        }
        const masters = combine(sets, dir);
        if (await selfTest(masters.urls[0]!, files[0]!, 1000)) {
          return { masters, clock: { method: `libfaketime ${lib} (FAKETIME_FOLLOW_FILE): the master's wall clock itself jumps`, jump: (master, ms) => jumpFile(files[master]!, ms) } };
        }
        why = 'a master under libfaketime did not see its clock jump';
      } catch (error) {
        why = `masters did not start under libfaketime: ${(error as Error).message.split('\n')[0] ?? ''}`;
      }
      await Promise.all(sets.map((set) => set.close()));
      await rm(dir, { recursive: true, force: true });
    }
  }
  const masters = await startMasters({ count });
  return { masters, clock: ttlShift(masters, why) };
}

/** One LocalMasters over single-master sets; closing it also removes the clock files' dir. */
function combine(sets: readonly LocalMasters[], dir: string): LocalMasters {
  const masters = Object.freeze(sets.map((set) => set.masters[0]!));
  const close = async (): Promise<void> => {
    await Promise.all(sets.map((set) => set.close()));
    await rm(dir, { recursive: true, force: true });
  };
  return { masters, urls: Object.freeze(masters.map((m) => m.url)), close, [Symbol.asyncDispose]: close };
}
