import type { Transport } from '../transport/transport.js';
import { onAbort } from '../util/on-abort.js';
import { msUntil, within } from '../util/time.js';

/**
 * The connections still opening when a Redlock was made, and the wait for them: a master that connects after a
 * quorum decided would leave the first locks on a bare quorum for their life (docs/decisions/0012, "opening.ts").
 */
export class Opening {
  /** Settles when every connection opening at construction is ready or failed once; undefined once settled (or if none was opening). */
  #pending: Promise<void> | undefined;

  constructor(transports: readonly Transport[]) {
    const opening = transports.filter((transport) => transport.isOpen && !transport.isReady);
    if (opening.length === 0) return;
    this.#pending = Promise.all(opening.map(settled)).then(() => { this.#pending = undefined; });
  }

  /**
   * Undefined when nothing is opening (no clock read: this is on every acquisition's path); else
   * resolves once it is all open (or failed), or after `budget` ms, or at `deadline`
   * (performance.now()), whichever is first.
   */
  until(deadline: number, budget = Infinity): Promise<void> | undefined {
    const pending = this.#pending;
    if (pending === undefined) return undefined;
    const until = Math.min(deadline, performance.now() + budget);
    return within(pending, Math.ceil(msUntil(until)), true);
  }
}

/** Resolves at the connection's first 'ready' or first error. */
function settled(transport: Transport): Promise<void> {
  return new Promise((resolve) => {
    const offReady = transport.onReady(done);
    const offError = transport.onError(done);
    function done(): void {
      offReady();
      offError();
      resolve();
    }
  });
}

/** The next 'ready' or error of any of `transports`, `closing`'s abort, or `deadline`, whichever is first. */
export async function connectionEvent(transports: readonly Transport[], closing: AbortSignal, deadline: number): Promise<void> {
  const offs: (() => void)[] = [];
  await within(new Promise<void>((resolve) => {
    for (const transport of transports) offs.push(transport.onReady(resolve), transport.onError(() => { resolve(); }));
    offs.push(onAbort(closing, resolve));
  }), msUntil(deadline), true);
  for (const off of offs) off();
}
