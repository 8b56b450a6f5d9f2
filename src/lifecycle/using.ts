import { InvalidArgumentError } from '../errors.js';
import { isObject } from '../util/checks.js';
import type { CallSettings, RedlockAbortSignal } from './lock.js';

/** `using()` keeps this much of the duration above automaticExtensionThreshold (node-redlock v5's rule). */
export const kUsingMarginMs = 100;

/** The routine `using()` runs while it holds the lock; `signal` aborts if the lock is lost. */
export type Routine<T> = (signal: RedlockAbortSignal) => Promise<T>;

/** What a routine runs under: an auto-extended lock (or a reentrant handle), and how it lets go. */
export interface Handle {
  readonly signal: RedlockAbortSignal | undefined;
  release(): Promise<unknown>;
}

/** using()'s two shapes, `(settings, routine)` and `(routine)`, checked: the routine and the settings. */
export function routineOf<T>(settingsOrRoutine: CallSettings | Routine<T>,
  routine: Routine<T> | undefined): { readonly settings: CallSettings | undefined; readonly fn: Routine<T> } {
  const fn = typeof settingsOrRoutine === 'function' ? settingsOrRoutine : routine;
  const settings = typeof settingsOrRoutine === 'function' ? undefined : settingsOrRoutine;
  if (typeof fn !== 'function') throw new InvalidArgumentError('routine', 'must be a function', fn);
  if (settings !== undefined && !isObject(settings)) throw new InvalidArgumentError('settings', 'must be an object', settings);
  return { settings, fn };
}

/** node-redlock v5's rule for using(): the duration must leave room above the renewal threshold. */
export function checkUsingDuration(duration: unknown, threshold: number): void {
  if (typeof duration === 'number' && threshold > duration - kUsingMarginMs) {
    throw new InvalidArgumentError('duration',
      `must be at least ${kUsingMarginMs} ms greater than automaticExtensionThreshold (${threshold} ms)`, duration);
  }
}

/** Runs `fn` with the lock's signal and always lets go; a failed release beside the routine's error is reported, not lost. */
export async function holding<T>(held: Handle, fn: Routine<T>, report: (error: unknown) => void): Promise<T> {
  let result: T;
  try {
    result = await fn(held.signal!);
  } catch (error) {
    await held.release().catch(report);
    throw error;
  }
  await held.release();
  return result;
}

/** using() for the kinds: the routine runs holding a lock `acquire` takes (auto-extended), always released. */
export async function usingLock<T>(
  host: { readonly settings: { readonly automaticExtensionThreshold: number }; report(error: unknown): void },
  duration: number,
  settingsOrRoutine: CallSettings | Routine<T>,
  routine: Routine<T> | undefined,
  acquire: (settings: CallSettings) => Promise<Handle>,
): Promise<T> {
  const { settings, fn } = routineOf(settingsOrRoutine, routine);
  checkUsingDuration(duration, settings?.automaticExtensionThreshold ?? host.settings.automaticExtensionThreshold);
  const lock = await acquire({ ...settings, autoExtend: true });
  return holding(lock, fn, (error) => { host.report(error); });
}
