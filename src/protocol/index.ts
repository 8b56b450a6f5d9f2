/**
 * `pipelock/protocol`: the facts of pipelock's wire protocol an operator tool needs to read what pipelock leaves on a
 * master (pipelock-tools' `doctor` and `inspect` use nothing else). Constants and pure functions only.
 */
import { quorumSize as majority } from './majority.js';
import { SCRIPTS as kScripts } from './calls.js';
import { BATCH_SHA as kBatchSha, DONE_MARKER as kDoneMarker } from './batch-script.js';
import { TOKEN_BYTES as kTokenBytes } from './token.js';

/** A Lua script pipelock runs with EVALSHA: its source and the SHA1 that names it in the script cache. */
export interface ProtocolScript {
  /** The Lua source. */
  readonly source: string;
  /** Its SHA1, as `EVALSHA` and `SCRIPT EXISTS` take it. */
  readonly sha: string;
}

/** How many of `n` masters make a quorum: ⌊n/2⌋ + 1, Redlock's majority. */
export const quorumSize: (n: number) => number = majority;

/** Random bytes in a lock token; a key's value is their base64url without padding, ⌈TOKEN_BYTES × 4/3⌉ characters. */
export const TOKEN_BYTES = kTokenBytes;

/** The value `runOnce()` leaves under a job's key once the job has finished (until its window ends). */
export const DONE_MARKER = kDoneMarker;

/** The SHA1 of the batch script, the one every operation but the commonest single-key ones is sent through. */
export const BATCH_SHA = kBatchSha;

/** Every script pipelock loads on a master (at connect, again after NOSCRIPT), as frozen copies of the library's own. */
export const SCRIPTS: readonly ProtocolScript[] =
  Object.freeze(kScripts.map((script) => Object.freeze({ source: script.source, sha: script.sha })));
