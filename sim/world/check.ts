import type { Claim, History } from './history.js';

/** One broken property: what, and the resource whose trace explains it (when there is one). */
export interface Violation {
  readonly property:
    | 'exclusion' | 'stalled' | 'fencing' | 'expired' | 'lost' | 'leftover' | 'settles' | 'timers' | 'thrown' | 'unhandled' | 'runaway'
    | 'terms' | 'term-clocks' | 'leader' | 'reentrant' | 'heartbeat';
  readonly resource: string | undefined;
  readonly text: string;
  /** World instant it happened, where one can be named (the trace is cut there). */
  readonly at?: number;
}

function describe(c: Claim): string {
  return `${c.holder} (p${c.proc}, ${c.kind}${c.fence === undefined ? '' : ` fence ${c.fence}`}) [${c.from.toFixed(1)}, ${c.to.toFixed(1)}]`;
}

/**
 * Mutual exclusion judged by what each holder was told: per resource, no two claims that may not
 * share it overlap in world time (writers and mutex holders exclude everyone; readers share with
 * readers; at most `permits` permit holders at once). Fencing: among a resource's fenced claims in
 * the order they began, each fence is greater than the one before.
 */
export function checkClaims(history: History): Violation[] {
  const out: Violation[] = [];
  const byResource = new Map<string, Claim[]>();
  for (const claim of history.claims) {
    const list = byResource.get(claim.resource) ?? [];
    list.push(claim);
    byResource.set(claim.resource, list);
  }
  for (const [resource, claims] of byResource) {
    claims.sort((a, b) => a.from - b.from || a.to - b.to);
    for (let i = 0; i < claims.length; i++) {
      const a = claims[i]!;
      for (let j = i + 1; j < claims.length && claims[j]!.from < a.to; j++) {
        const b = claims[j]!;
        if (b.to <= b.from || a.to <= a.from) continue;
        if ((a.kind === 'r' && b.kind === 'r') || (a.kind === 'p' && b.kind === 'p')) continue;
        if (a.owner !== undefined && a.owner === b.owner) continue;
        out.push({ property: a.stalled === true || b.stalled === true ? 'stalled' : 'exclusion', resource, at: b.from, text: `${resource}: ${describe(a)} overlaps ${describe(b)}` });
        if (out.length > 5) return out;
      }
    }
    const permits = overPermits(claims.filter((c) => c.kind === 'p' && c.to > c.from));
    if (permits !== undefined) out.push({ property: judged(permits), resource, at: permits.at, text: `${resource}: ${permits.count} permit holders at once (${permits.holders.join(', ')}) of ${permits.limit}` });
    let last: Claim | undefined;
    for (const claim of claims) {
      if (claim.fence === undefined) continue;
      if (last !== undefined && claim.fence <= last.fence!) {
        out.push({ property: 'fencing', resource, at: claim.from, text: `${resource}: fence ${claim.fence} of ${claim.holder} after ${last.fence} of ${last.holder}` });
      }
      last = claim;
    }
  }
  return out;
}

/** The first instant more permit holders than permits claimed the resource at once. */
function overPermits(claims: readonly Claim[]): { at: number; count: number; limit: number; holders: string[]; stalled: boolean } | undefined {
  const events = claims.flatMap((c) => [{ at: c.from, c, d: 1 }, { at: c.to, c, d: -1 }]);
  // Ends before starts at the same instant: a holder that lets go as another takes it is not both.
  events.sort((x, y) => x.at - y.at || x.d - y.d);
  const open = new Set<Claim>();
  for (const e of events) {
    if (e.d < 0) {
      open.delete(e.c);
      continue;
    }
    open.add(e.c);
    if (open.size > e.c.permits) {
      const holders = [...open];
      return { at: e.at, count: open.size, limit: e.c.permits, holders: holders.map(describe), stalled: holders.some((h) => h.stalled === true) };
    }
  }
  return undefined;
}

function judged(over: { stalled: boolean }): Violation['property'] {
  return over.stalled ? 'stalled' : 'exclusion';
}

/**
 * Violations a run within Redlock's assumptions may still show: a holder acting straight after a
 * pause; a term below an earlier one where every master that saw the earlier lost its counter
 * (terms then rest on the campaigners' clocks, which a scenario may set far apart).
 */
export function expected(v: Violation): boolean {
  return v.property === 'stalled' || v.property === 'term-clocks';
}

/** Every operation a workload started settled (resolved or rejected) before the run ended. */
export function checkSettled(history: History): Violation[] {
  return history.ops
    .filter((op) => op.settled === undefined)
    .slice(0, 5)
    .map((op) => ({ property: 'settles' as const, resource: undefined, text: `p${op.proc} ${op.name} (started ${op.started.toFixed(1)}) never settled` }));
}
