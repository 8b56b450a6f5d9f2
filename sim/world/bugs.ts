import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { threadId } from 'node:worker_threads';
import { kWorkerPatches } from './renewal-worker.js';

/**
 * Known bug shapes of lock clients, each planted by editing a copy of pipelock's src/ (never src/
 * itself): the simulation must find every one. A patch names the exact text it replaces, and fails
 * loudly when that text is gone, so a planted bug cannot silently stop being planted.
 */
export interface PlantedBug {
  readonly name: string;
  /** What it reintroduces, and where it was seen. */
  readonly what: string;
  readonly patches: readonly { readonly file: string; readonly from: string; readonly to: string }[];
  /** The scenarios that reach it (default mutex and handover). */
  readonly scenarios?: readonly string[];
}

export const kBugs: readonly PlantedBug[] = [
  {
    name: 'validity-from-reply',
    what: 'validity counted from when the quorum answered instead of from when the attempt was sent',
    patches: [{ file: 'src/lifecycle/acquire.ts', from: 'const until = validUntil(attempt.start, a.duration, s.driftFactor);', to: 'const until = validUntil(performance.now(), a.duration, s.driftFactor);' }],
  },
  {
    name: 'extend-from-deadline',
    what: 'an extension advances the old deadline (deadline + duration) instead of counting from its send (rueidislock #923)',
    patches: [
      {
        file: 'src/lifecycle/renewal.ts',
        from: 'held.renewed(validUntil(attempt.start, held.sentFor, held.settings.driftFactor), held.sent, now);',
        to: 'held.renewed(validUntil(lock.validUntil, held.sentFor, held.settings.driftFactor), held.sent, now);',
      },
      { file: 'src/lifecycle/extend.ts', from: 'const until = validUntil(attempt.start, duration, s.driftFactor);', to: 'const until = validUntil(lock.validUntil, duration, s.driftFactor);' },
    ],
  },
  {
    name: 'release-without-owner-check',
    what: 'a release deletes the keys whoever holds them (a plain DEL)',
    patches: [
      { file: 'src/protocol/lean-script.ts', from: "if pcall('GET', key) == argv[i] then call('DEL', key) out[i] = 1", to: "if true then call('DEL', key) out[i] = 1" },
      { file: 'src/protocol/release-script.ts', from: "if redis.pcall('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end", to: "if true then return redis.call('DEL', KEYS[1]) end" },
      { file: 'src/protocol/batch-script.ts', from: "      if redis.pcall('GET', KEYS[i]) == token then\n        redis.call('DEL', KEYS[i])", to: "      if true then\n        redis.call('DEL', KEYS[i])" },
    ],
  },
  {
    name: 'expired-acquire',
    what: 'an acquisition whose quorum answered after its validity ran out returns the lock (node-redlock v5 #296)',
    patches: [{ file: 'src/lifecycle/acquire.ts', from: 'if (until > now && !isAborted(signal)) {', to: 'if (!isAborted(signal)) {' }],
  },
  {
    name: 'no-undo',
    what: 'the keys a lost attempt won on some masters are not undone before a retry (node-redlock v5 self-blocking retries)',
    patches: [{ file: 'src/lifecycle/acquire.ts', from: 'const undone = masters.cleanup(attempt, lockKeys, a.kind.ops.release);', to: 'const undone = Promise.resolve();' }],
  },
  {
    name: 'handover-without-owner-check',
    what: "a handover to a waiter of the process sets the waiter's token without checking the keys still hold the holder's",
    patches: [{ file: 'src/protocol/batch-script.ts', from: "  elseif op == 'H' then\n    r = ours(k, n, extra)", to: "  elseif op == 'H' then\n    r = n" }],
  },
  {
    name: 'no-drift',
    what: "validity without the drift allowance (duration × driftFactor + 2 ms)",
    patches: [{ file: 'src/lifecycle/validity.ts', from: 'return Math.round(duration * driftFactor) + 2;', to: 'return 0;' }],
  },
  {
    name: 'extend-no-reschedule',
    what: "extend() of an auto-extended lock leaves its renewal due at the old time and duration: a shorter one runs out first (review-r4 item 7)",
    patches: [
      { file: 'src/lifecycle/extend.ts', from: 'const epoch = lock[kRenewal]?.retime(duration) ?? 0;', to: 'const epoch = 0;' },
      {
        file: 'src/lifecycle/hold.ts',
        from: '    if (!this.renewed(until, epoch, now)) return false;\n    this.renewals.reschedule(this);',
        to: '    if (!this.renewed(until, epoch, now)) return false;',
      },
    ],
  },
  {
    name: 'renewal-over-extend',
    what: 'a renewal sent before a shorter extend() and decided after it restores the long validity, the keys cut short (review-r4 item 2)',
    patches: [{ file: 'src/lifecycle/hold.ts', from: 'epoch === this.epoch ? until : Math.min(until, this.lock.validUntil)', to: 'until' }],
  },
  {
    name: 'passed-expired',
    what: 'a lock passed within the process is returned to the waiter after its validity ran out (a stall between the handover and the resumption)',
    patches: [{ file: 'src/lifecycle/acquire.ts', from: 'if (!masters.isClosed() && !isAborted(signal) && lock.validity > 0) {', to: 'if (!masters.isClosed() && !isAborted(signal)) {' }],
  },
  {
    name: 'election-pass-keeps-token',
    what: "a campaigner of the holder's process is passed the election's lock as it stands, with its token: the old leader's records count again where the resign's erase did not land, and leader() shows a superseded term (review-r4 item 3)",
    patches: [{
      file: 'src/waiting/handover.ts',
      from: 'lock.validUntil - performance.now() >= heir.terms!.least;',
      // A campaign asks for validity Infinity (never passed as it stands): back to duration less two drift allowances.
      to: 'lock.validUntil - performance.now() >= (heir.terms!.least === Infinity ? Number(heir.terms!.ttlArg) - 2 * (Math.round(Number(heir.terms!.ttlArg) * 0.01) + 2) : heir.terms!.least);',
    }],
    scenarios: ['election'],
  },
  {
    name: 'term-from-clock',
    what: "a won raise returns its target although a master answered a higher counter: after a quorum of masters restarted empty, a campaigner whose clock is behind gets a lower term (review-r4 item 4)",
    patches: [{ file: 'src/engine/fencing.ts', from: 'if (raise.won && (fromClock || round > 0 ? raise.value < fence : raise.value <= fence)) return fence;', to: 'if (raise.won) return fence;' }],
    scenarios: ['election-restarts'],
  },
  {
    name: 'worker-past-heartbeat',
    what: "the renewal worker renews whatever the main thread's heartbeat says: a hung process holds its locks for ever (issue 44's heartbeat bound)",
    patches: [...kWorkerPatches, { file: 'src/lifecycle/worker/thread.ts', from: 'if (heartbeat.age < bound) {', to: 'if (true) {' }],
    scenarios: ['worker'],
  },
  {
    name: 'reentrant-stale-signal',
    what: "a reentrant holder's signal does not read the clock: after a blocked loop a nested using() enters the expired lock (review-r4 item 1)",
    patches: [{ file: 'src/recipes/reentrant/holding.ts', from: 'readClockFirst(this.#controller.signal, () => this.#lock?.signal?.aborted);', to: 'this.#controller.signal;' }],
    scenarios: ['reentrant'],
  },
];

const kRepo = join(fileURLToPath(import.meta.url), '..', '..', '..');
/** Under node_modules: linters and the typecheck skip it, and pipelock's dependencies resolve from it. */
const kPlantRoot = join(kRepo, 'node_modules', '.cache', 'pipelock-sim-bugs');

/** A copy of src/ with `bug` planted; its root (for runSeed's `root`). */
export function plant(bug: PlantedBug): string {
  const root = join(kPlantRoot, bug.name);
  rmSync(root, { recursive: true, force: true });
  write(root, bug);
  return root;
}

/** Every file of src/ and the patches, hashed: a copy made from other sources is not this one. */
function stamp(bug: PlantedBug): string {
  const hash = createHash('sha256').update(JSON.stringify(bug.patches));
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else hash.update(path).update(readFileSync(path));
    }
  };
  walk(join(kRepo, 'src'));
  return hash.digest('hex').slice(0, 12);
}

const shared = new Map<string, string>();

/**
 * A copy of src/ with `bug`'s patches that threads and processes running at once share (a
 * scenario that always runs patched, 'worker'): made once per content, moved into place whole.
 */
export function plantShared(bug: PlantedBug): string {
  let root = shared.get(bug.name);
  if (root !== undefined) return root;
  root = join(kPlantRoot, `${bug.name}-${stamp(bug)}`);
  if (!existsSync(root)) {
    const making = `${root}.${process.pid}.${threadId}`;
    rmSync(making, { recursive: true, force: true });
    write(making, bug);
    try {
      renameSync(making, root);
    } catch (error) {
      // Another thread moved its copy in first: the same content.
      rmSync(making, { recursive: true, force: true });
      if (!existsSync(root)) throw error;
    }
  }
  shared.set(bug.name, root);
  return root;
}

function write(root: string, bug: PlantedBug): void {
  mkdirSync(root, { recursive: true });
  cpSync(join(kRepo, 'src'), join(root, 'src'), { recursive: true });
  for (const patch of bug.patches) {
    const file = join(root, patch.file);
    const text = readFileSync(file, 'utf8');
    const at = text.indexOf(patch.from);
    if (at === -1 || text.indexOf(patch.from, at + 1) !== -1) throw new Error(`planting ${bug.name}: ${patch.file} must hold exactly one ${JSON.stringify(patch.from)}`);
    writeFileSync(file, text.replace(patch.from, patch.to));
  }
}
