import { AGAINST, type Attempt } from '../engine/attempt.js';
import type { Master } from '../engine/master.js';

/**
 * Why a refused acquisition's keys may not be locks at all: read on the masters that refused it,
 * once, when the call has already failed (never on a successful path). A pipelock lock is a string
 * with a TTL; a key of another type, or one that never expires, is the application's data or
 * another library's, and waiting for it cannot help. Undefined when every refusal looked like a lock
 * or nothing could be read within `budget` ms.
 */
export async function foreignHolder(nodes: readonly Master[], attempt: Attempt, keys: readonly string[], budget: number): Promise<string | undefined> {
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
    const type = await node.transport.send(['TYPE', key]);
    if (type === 'none') return undefined;
    if (type !== 'string') return `${JSON.stringify(key)} holds a ${String(type)}`;
    const pttl = await node.transport.send(['PTTL', key]);
    return pttl === -1 ? `${JSON.stringify(key)} is a string with no TTL` : undefined;
  } catch {
    // Best effort: the call has failed already, and its error says so; an unreadable key adds nothing.
    return undefined;
  }
}
