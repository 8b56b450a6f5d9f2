import type { Term } from '../../src/index.js';
import type { Violation } from './check.js';
import type { Claim } from './history.js';
import type { Host } from './host.js';
import { outcome, sleep, type Worker } from './workloads.js';

/** One term granted: campaign() resolved with it, at world instant `at`. */
interface Grant {
  readonly term: number;
  readonly holder: string;
  readonly at: number;
  /** The token the election's lock key holds on a quorum of the masters up at the grant, if one does. */
  readonly token: string | undefined;
}

/**
 * What the run's leaders were granted, per election: terms must never repeat or go back, and
 * leader() must never show a term granted before the newest one granted before the read began.
 * A term below an earlier one is a violation when a master that is up still holds a counter at or
 * above the earlier term (the raise must have met it: src/engine/fencing.ts); where every such
 * master lost its counter, terms rest on the campaigners' clocks (docs/lock-kinds.md), which the
 * scenarios may set far apart: counted as expected. A term's lock never holds the token of the
 * term before it (docs/lock-kinds.md: a leadership handed within a process gets a new token, or the
 * old term's records count again where its resign's erase did not land: review-r4 item 3).
 */
export class Terms {
  readonly violations: Violation[] = [];
  readonly #grants = new Map<string, Grant[]>();

  constructor(readonly hosts: readonly Host[]) {}

  /** campaign() resolved with `term` now. */
  granted(election: string, term: number, holder: string, at: number): void {
    const grants = this.#grants.get(election) ?? [];
    this.#grants.set(election, grants);
    const repeat = grants.find((g) => g.term === term);
    const highest = grants.reduce<Grant | undefined>((a, g) => (a === undefined || g.term > a.term ? g : a), undefined);
    const token = this.#token(election);
    const last = grants.at(-1);
    grants.push({ term, holder, at, token });
    if (token !== undefined && last?.token === token) {
      this.violations.push({ property: 'terms', resource: election, at, text: `${election}: term ${term} of ${holder} holds the lock under the token of term ${last.term} of ${last.holder} (its records count again)` });
    }
    if (repeat !== undefined) {
      this.violations.push({ property: 'terms', resource: election, at, text: `${election}: term ${term} of ${holder} repeats ${repeat.holder}'s` });
      return;
    }
    if (highest === undefined || term > highest.term) return;
    const counter = `pipelock:fence:${election}`;
    const keeper = this.hosts.find((host) => !host.isDown() && host.master.dump().some((k) => k.key === counter && typeof k.value === 'string' && Number(k.value) >= highest.term));
    const text = `${election}: term ${term} of ${holder} after term ${highest.term} of ${highest.holder}`;
    if (keeper !== undefined) this.violations.push({ property: 'terms', resource: election, at, text: `${text}, while ${keeper.name} kept a counter at or above it` });
    else this.violations.push({ property: 'term-clocks', resource: election, at, text: `${text}: every master that saw it lost its counter (terms rest on the campaigners' clocks)` });
  }

  /** The value of the election's lock key on a quorum of the masters, if one holds the same. */
  #token(election: string): string | undefined {
    const counts = new Map<string, number>();
    for (const host of this.hosts) {
      if (host.isDown()) continue;
      const key = host.master.dump().find((k) => k.key === election);
      if (key?.type === 'string') counts.set(key.value, (counts.get(key.value) ?? 0) + 1);
    }
    for (const [token, count] of counts) if (count > this.hosts.length / 2) return token;
    return undefined;
  }

  /** The newest grant of `election` so far (a read that begins now must not show an older one). */
  newest(election: string): Grant | undefined {
    return this.#grants.get(election)?.at(-1);
  }

  /** leader() begun after `before` was granted resolved with `term`. */
  read(election: string, before: Grant | undefined, term: number | undefined, reader: string, at: number): void {
    if (before === undefined || term === undefined || term === before.term) return;
    const shown = this.#grants.get(election)?.find((g) => g.term === term);
    // A term never granted is a campaign withdrawn after its write (docs/lock-kinds.md): not judged here.
    if (shown === undefined || shown.at >= before.at) return;
    this.violations.push({ property: 'leader', resource: election, at, text: `${election}: leader() of ${reader} showed term ${term} of ${shown.holder}, superseded by term ${before.term} of ${before.holder} before the read began` });
  }
}

const kLeases = [600, 1000, 2500];

/** The leader acts now if its term's signal says it still leads: its claim runs to the lease's end. */
function acts(w: Worker, claim: Claim, term: Term): boolean {
  if (term.signal.aborted) return false;
  claim.to = Math.max(claim.to, w.proc.worldAt(performance.now() + term.validity));
  return true;
}

async function readLeader(w: Worker, name: string): Promise<void> {
  const { proc, history, terms } = w;
  const reader = w.holders.label();
  const before = terms!.newest(name);
  const op = history.op(proc.id, `leader ${name} (${reader})`);
  try {
    const leader = await w.redlock.election(name).leader();
    history.settle(op, leader === undefined ? 'none' : `term ${leader.term} ${JSON.stringify(leader.value)}`);
    terms!.read(name, before, leader?.term, reader, proc.world.now);
  } catch (error) {
    history.settle(op, outcome(error));
  }
}

async function proclaim(w: Worker, name: string, term: Term, value: string): Promise<void> {
  const op = w.history.op(w.proc.id, `proclaim ${name} ${value}`);
  try {
    await term.proclaim(value);
    w.history.settle(op, 'ok');
  } catch (error) {
    w.history.settle(op, outcome(error));
  }
}

/** A leadership: acting while the term's signal says so, proclaiming now and then, resigning (at once, sometimes). */
async function lead(w: Worker, name: string, term: Term, lease: number): Promise<void> {
  const { proc, random, history } = w;
  const holder = w.holders.label();
  const now = proc.world.now;
  const claim: Claim = { holder, proc: proc.id, resource: `election:${name}`, kind: 'x', permits: 1, fence: undefined, from: now, to: now };
  history.claims.push(claim);
  w.terms!.granted(name, term.term, holder, now);
  history.log(proc.id, `${holder} leads ${name} in term ${term.term}`);
  acts(w, claim, term);
  // A leader that proclaims and resigns at once resigns within a drift allowance of its grant: the
  // lock could then be passed within the process as it stands (review-r4 item 3, now never done).
  const quick = random.chance(0.3);
  const steps = quick ? 1 : random.between(0, 4);
  for (let i = 0; i < steps; i++) {
    if (!quick) await sleep(random.between(1, Math.round(lease / 2)));
    if (!acts(w, claim, term)) break;
    if (quick || random.chance(0.5)) await proclaim(w, name, term, `${holder}.${i}`);
  }
  // Or it resigns just after its lease was renewed, when the most validity is left (as just after the grant).
  if (!quick && random.chance(0.4)) {
    let left = term.validity;
    for (let i = 0; i < 1000 && acts(w, claim, term); i++) {
      await sleep(random.between(1, 3));
      if (term.validity > left) break;
      left = term.validity;
    }
  }
  const op = history.op(proc.id, `resign ${name} term ${term.term}`);
  claim.to = Math.min(claim.to, proc.world.now);
  try {
    await term.resign();
    history.settle(op, 'ok');
  } catch (error) {
    history.settle(op, outcome(error));
  }
  history.log(proc.id, `${holder} lets go of ${name}`);
}

/** Campaigners, leaders and readers of the phase's elections (one per resource name). */
export async function elections(w: Worker, until: number): Promise<void> {
  const { proc, random, redlock, history } = w;
  while (proc.world.now < until) {
    const name = random.pick(w.resources);
    if (random.chance(0.3)) {
      await readLeader(w, name);
    } else {
      const lease = random.pick(kLeases);
      // A campaign waits as long as it takes: given up at the phase's end, so that the run ends.
      const stop = new AbortController();
      const timer = setTimeout(() => { stop.abort(new Error('the phase is over')); }, Math.max(1, until - proc.world.now) + random.between(0, lease));
      const op = history.op(proc.id, `campaign ${name} ${lease}`);
      let term: Term | undefined;
      try {
        term = await redlock.election(name, { lease }).campaign({ signal: stop.signal, value: `p${proc.id}` });
        history.settle(op, `term ${term.term}`);
      } catch (error) {
        history.settle(op, outcome(error));
      } finally {
        clearTimeout(timer);
      }
      if (term !== undefined) await lead(w, name, term, lease);
    }
    await sleep(random.between(0, 200));
  }
}
