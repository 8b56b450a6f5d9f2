import type { Batch } from './coalescer.js';
import { UnexpectedReplyError } from '../errors.js';
import { SCRIPTS, scriptLoadArgs } from '../protocol/calls.js';
import type { Transport } from '../transport/transport.js';
import { asError } from '../util/checks.js';

/** What a replay needs from its master. */
export interface ReplayTarget {
  readonly transport: Transport;
  /** Sends a batch now. */
  dispatch(batch: Batch): void;
  /** The reload failed with `error`: settle (or resend) the batch's operations. */
  replayFailed(batch: Batch, error: Error): void;
  /** A master-level failure (the reload's). */
  report(error: Error): void;
}

/** SCRIPT LOAD of every script at once; rejects with the transport's error, or UnexpectedReplyError on a wrong SHA. */
export async function loadScripts(transport: Transport): Promise<void> {
  const shas = await Promise.all(SCRIPTS.map((script) => transport.send(scriptLoadArgs(script))));
  for (let i = 0; i < SCRIPTS.length; i++) if (shas[i] !== SCRIPTS[i]!.sha) throw new UnexpectedReplyError(transport.name, shas[i]);
}

/**
 * NOSCRIPT recovery of one master: load every script once, then resend the batches that met NOSCRIPT and those cut
 * meanwhile, in their original order, so a cleanup still follows what it undoes (docs/decisions/0012).
 */
export class ScriptReplay {
  readonly #target: ReplayTarget;
  /** Single flight of `SCRIPT LOAD` after a NOSCRIPT; batches wait behind it in order. */
  #reloading: Promise<void> | undefined;
  #replay: Batch[] = [];
  #held: Batch[] = [];

  constructor(target: ReplayTarget) {
    this.#target = target;
  }

  /** While the script reloads, later calls wait behind it so that the master sees them in order: true when `batch` was held. */
  hold(batch: Batch): boolean {
    if (this.#reloading === undefined) return false;
    this.#held.push(batch);
    return true;
  }

  /** True when `error` is a first NOSCRIPT for `batch`: it will be resent after the reload. */
  recover(batch: Batch, error: Error): boolean {
    if (batch.replayed || !error.message.startsWith('NOSCRIPT')) return false;
    batch.replayed = true;
    this.#replay.push(batch);
    this.#reloading ??= this.#reload();
    return true;
  }

  async #reload(): Promise<void> {
    const target = this.#target;
    let failure: Error | undefined;
    try {
      await loadScripts(target.transport);
    } catch (error) {
      failure = asError(error);
    }
    const batches = this.#replay.sort((a, b) => a.seq - b.seq).concat(this.#held);
    this.#replay = [];
    this.#held = [];
    this.#reloading = undefined;
    if (failure !== undefined) target.report(failure);
    for (const batch of batches) {
      if (failure === undefined) target.dispatch(batch);
      else target.replayFailed(batch, failure);
    }
  }
}
