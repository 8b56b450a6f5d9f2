import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
];

const kRepo = join(fileURLToPath(import.meta.url), '..', '..', '..');
/** Under node_modules: linters and the typecheck skip it, and pipelock's dependencies resolve from it. */
const kPlantRoot = join(kRepo, 'node_modules', '.cache', 'pipelock-sim-bugs');

/** A copy of src/ with `bug` planted; its root (for runSeed's `root`). */
export function plant(bug: PlantedBug): string {
  const root = join(kPlantRoot, bug.name);
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  cpSync(join(kRepo, 'src'), join(root, 'src'), { recursive: true });
  for (const patch of bug.patches) {
    const file = join(root, patch.file);
    const text = readFileSync(file, 'utf8');
    const at = text.indexOf(patch.from);
    if (at === -1 || text.indexOf(patch.from, at + 1) !== -1) throw new Error(`planting ${bug.name}: ${patch.file} must hold exactly one ${JSON.stringify(patch.from)}`);
    writeFileSync(file, text.replace(patch.from, patch.to));
  }
  return root;
}
