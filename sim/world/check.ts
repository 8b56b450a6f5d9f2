import type { Claim, History } from './history.js';

/** One broken property: what, and the resource whose trace explains it (when there is one). */
export interface Violation {
  readonly property: 'exclusion' | 'stalled' | 'fencing' | 'expired' | 'leftover' | 'settles' | 'timers' | 'thrown' | 'unhandled';
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
      let sharing = 0;
      for (let j = i + 1; j < claims.length && claims[j]!.from < a.to; j++) {
        const b = claims[j]!;
        if (b.to <= b.from || a.to <= a.from) continue;
        if (a.kind === 'r' && b.kind === 'r') continue;
        if (a.kind === 'p' && b.kind === 'p') {
          if (++sharing < a.permits) continue;
        }
        out.push({ property: a.stalled === true || b.stalled === true ? 'stalled' : 'exclusion', resource, at: b.from, text: `${resource}: ${describe(a)} overlaps ${describe(b)}` });
        if (out.length > 5) return out;
      }
    }
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

/** Violations a run within Redlock's assumptions may still show: a holder acting straight after a pause. */
export function expected(v: Violation): boolean {
  return v.property === 'stalled';
}

/** Every operation a workload started settled (resolved or rejected) before the run ended. */
export function checkSettled(history: History): Violation[] {
  return history.ops
    .filter((op) => op.settled === undefined)
    .slice(0, 5)
    .map((op) => ({ property: 'settles' as const, resource: undefined, text: `p${op.proc} ${op.name} (started ${op.started.toFixed(1)}) never settled` }));
}
