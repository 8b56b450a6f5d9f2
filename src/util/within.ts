import { later } from './later.js';

/** `promise`'s value, or undefined once `ms` have passed first; a rejection counts as settled too (undefined). */
export function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise<T | undefined>((resolve) => {
    const cancel = later(ms, () => { resolve(undefined); });
    const done = (value: T | undefined): void => {
      cancel();
      resolve(value);
    };
    promise.then(done, () => { done(undefined); });
  });
}
