import { AGAINST, type Attempt } from '../engine/attempt.js';
import type { Master } from '../engine/master.js';

/**
 * Why a refused acquisition's keys may not be locks at all: read on the masters that refused it,
 * once, when the call has already failed (never on a successful path). A pipelock lock is a string
 * with a TTL; a key of another type, or one that never expires, is the application's data or
 * another library's, and waiting for it cannot help. Undefined when every refusal looked like a lock
 * or nothing could be read within `budget` ms.
 */
async function foreignHolder(nodes: readonly Master[], attempt: Attempt, keys: readonly string[], budget: number): Promise<string | undefined> {
  const reads: Promise<string | undefined>[] = [];
  for (const node of nodes) {
    if (attempt.votes[node.index] !== AGAINST) continue;
    for (const key of keys) reads.push(readOne(node, key));
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined[]>((resolve) => (timer = setTimeout(resolve, budget, [])));
  const found = await Promise.race([Promise.all(reads), timeout]);
  clearTimeout(timer);
  const seen = new Map<string, number>();
  for (const what of found) if (what !== undefined) seen.set(what, (seen.get(what) ?? 0) + 1);
  if (seen.size === 0) return undefined;
  return [...seen].map(([what, n]) => `${what} (${n} of ${nodes.length} masters)`).join('; ');
}

async function readOne(node: Master, key: string): Promise<string | undefined> {
  try {
    const [type, pttl] = await Promise.all([node.transport.send(['TYPE', key]), node.transport.send(['PTTL', key])]);
    if (type === 'none') return undefined;
    if (type !== 'string') return `${JSON.stringify(key)} holds a ${String(type)}`;
    return pttl === -1 ? `${JSON.stringify(key)} is a string with no TTL` : undefined;
  } catch {
    // Best effort: the call has failed already, and its error says so; an unreadable key adds nothing.
    return undefined;
  }
}

/** How often a refusal may read its keys, per Redlock: a hot key is refused thousands of times a second. */
const kReadEveryMs = 1000;
/** How long a finding is told to later refusals of the same keys without reading again. */
const kRememberMs = 10_000;
const kRemembered = 256;

/**
 * foreignHolder, rationed: at most one read in flight and one a second, findings remembered for a
 * while. On a contended key nearly every attempt is refused by a lock, and reading TYPE and PTTL
 * on each refusal doubled the Redis commands per refused attempt (bench:peers' hot key); a foreign
 * key does not come and go, so the first refusal that reads it names it, and the next ones repeat it.
 */
export class ForeignKeys {
  #nextReadAt = 0;
  #reading = false;
  readonly #found = new Map<string, { readonly what: string; readonly until: number }>();

  async holder(nodes: readonly Master[], attempt: Attempt, keys: readonly string[], budget: number): Promise<string | undefined> {
    const now = performance.now();
    const id = keys.join('\u0000');
    const found = this.#found.get(id);
    if (found !== undefined) {
      if (found.until > now) return found.what;
      this.#found.delete(id);
    }
    if (this.#reading || now < this.#nextReadAt) return undefined;
    this.#reading = true;
    this.#nextReadAt = now + kReadEveryMs;
    try {
      const what = await foreignHolder(nodes, attempt, keys, budget);
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
