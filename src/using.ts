/** node-redlock's signal: aborted when the lock is lost, with the reason also at `error`. */
export type RedlockAbortSignal = AbortSignal & { error?: Error };
