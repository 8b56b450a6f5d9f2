import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { ACQUIRE_RETRY_CHANNEL, type AcquireRetryMessage } from '../../src/metrics/index.js';

/**
 * Resolves once `count` retries of acquire calls for `resource` (any Redlock of this process; a call's first refusal
 * is one) were scheduled: each call is going to sleep, where a release can wake it, hand it the lock or pass it on. Made before
 * the calls start; a test awaits it (then a turn of the event loop, for the sleep to begin) rather than a delay
 * that a loaded machine outruns.
 */
export function retrying(resource: string, count = 1): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const onRetry = (message: unknown): void => {
      if ((message as AcquireRetryMessage).resources[0] !== resource || ++seen < count) return;
      unsubscribe(ACQUIRE_RETRY_CHANNEL, onRetry);
      resolve();
    };
    subscribe(ACQUIRE_RETRY_CHANNEL, onRetry);
  });
}
