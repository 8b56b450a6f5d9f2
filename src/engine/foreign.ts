import { AGAINST, type Attempt } from './attempt.js';
import type { MasterSet } from './masters.js';
import { OP_KEYS_READ } from '../protocol/opcodes.js';

/**
 * Why a refused acquisition's keys may not be locks at all (another type, or no TTL: the application's data), read
 * once on the refusing masters after the call failed. Undefined when all looked like locks or nothing was read.
 */
async function foreignHolder(masters: MasterSet, attempt: Attempt, resources: readonly string[],
  budget: number): Promise<string | undefined> {
  if (masters.isClosed()) return undefined;
  const refused = attempt.votes.map((vote) => vote === AGAINST);
  const read = await masters.read(OP_KEYS_READ, resources, budget, undefined, refused).done;
  const seen = new Map<string, number>();
  for (const answer of read.answers) {
    // Per key its TYPE and PTTL (src/protocol/election-ops.ts J); a master that did not answer adds nothing.
    if (!Array.isArray(answer)) continue;
    for (let i = 0; i < read.keys.length; i++) {
      const what = foreign(read.keys[i]!, answer[2 * i], answer[2 * i + 1]);
      if (what !== undefined) seen.set(what, (seen.get(what) ?? 0) + 1);
    }
  }
  if (seen.size === 0) return undefined;
  return [...seen].map(([what, n]) => `${what} (${n} of ${masters.nodes.length} masters)`).join('; ');
}

/** What a key of another type, or a string that never expires, is; undefined for what looks like a lock (or nothing). */
function foreign(key: string, type: unknown, pttl: unknown): string | undefined {
  const kind = Buffer.isBuffer(type) ? type.toString() : type;
  if (kind === 'none' || typeof kind !== 'string') return undefined;
  if (kind !== 'string') return `${JSON.stringify(key)} holds a ${kind}`;
  return Number(pttl) === -1 ? `${JSON.stringify(key)} is a string with no TTL` : undefined;
}

/** How often a refusal may read its keys, per Redlock: a hot key is refused thousands of times a second. */
const kReadEveryMs = 1000;
/** How long a finding is told to later refusals of the same keys without reading again. */
const kRememberMs = 10_000;
const kRemembered = 256;

/**
 * foreignHolder, rationed (one read in flight, one a second, findings remembered): reading on every refusal of a hot
 * key doubled its commands, and a foreign key does not come and go.
 */
export class ForeignKeys {
  #nextReadAt = 0;
  #reading = false;
  readonly #found = new Map<string, { readonly what: string; readonly until: number }>();

  async holder(masters: MasterSet, attempt: Attempt, resources: readonly string[], budget: number): Promise<string | undefined> {
    const now = performance.now();
    const id = resources.join('\u0000');
    const found = this.#found.get(id);
    if (found !== undefined) {
      if (found.until > now) return found.what;
      this.#found.delete(id);
    }
    if (this.#reading || now < this.#nextReadAt) return undefined;
    this.#reading = true;
    this.#nextReadAt = now + kReadEveryMs;
    try {
      const what = await foreignHolder(masters, attempt, resources, budget);
      if (what !== undefined) {
        if (this.#found.size >= kRemembered) this.#found.delete(this.#found.keys().next().value!);
        this.#found.set(id, { what, until: now + kRememberMs });
      }
      return what;
    } finally {
      this.#reading = false;
    }
  }
}
