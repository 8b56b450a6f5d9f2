import { kMaxTimerMs } from './alarm.js';
import { onAbort } from './on-abort.js';

/*
 * Time's one home: every timer of src/ outside Alarm is made here (lint refuses `setTimeout`
 * elsewhere), so a reader finds each wait, sleep and race by these names.
 */

/** How long until the performance.now() instant `at`, as a timer can wait it (0 when past). */
export function msUntil(at: number): number {
  return Math.min(kMaxTimerMs, Math.max(0, at - performance.now()));
}

/** `fn` after `ms` on an unref'd timer (a pending retry must not keep the process alive); returns the cancel. */
export function later(ms: number, fn: () => void): () => void {
  const timer = setTimeout(fn, ms);
  timer.unref();
  return () => {
    clearTimeout(timer);
  };
}

/** `fn` after `ms` on a timer that keeps the process alive until it rings; clearTimeout cancels it. */
export function after(ms: number, fn: () => void): NodeJS.Timeout {
  return setTimeout(fn, ms);
}

/** The one abortable sleep: true after `ms`, false once `signal` aborts. Its timer keeps the process alive. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal === undefined) return new Promise((resolve) => setTimeout(resolve, ms, true));
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const forget = onAbort(signal, () => {
      clearTimeout(timer);
      resolve(false);
    });
    const timer = setTimeout(() => {
      forget();
      resolve(true);
    }, ms);
  });
}

/** `promise`'s value, or undefined after `ms` or on rejection; the timer is unref'd unless `keepAlive`. */
export function within<T>(promise: Promise<T>, ms: number, keepAlive = false): Promise<T | undefined> {
  return new Promise<T | undefined>((resolve) => {
    const timer = setTimeout(resolve, ms, undefined);
    if (!keepAlive) timer.unref();
    const done = (value: T | undefined): void => {
      clearTimeout(timer);
      resolve(value);
    };
    promise.then(done, () => { done(undefined); });
  });
}
