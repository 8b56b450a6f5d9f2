import { InvalidArgumentError } from '../errors.js';
import type { Lock, RedlockAbortSignal } from './lock.js';
import type { KindHost } from './kind.js';
import { isObject, kUsingMarginMs, type CallSettings } from '../settings.js';

type Routine<T> = (signal: RedlockAbortSignal) => Promise<T>;

/**
 * Redlock.using() for the other kinds: `acquire` (with autoExtend) the lock, run the routine with
 * its signal, always release; the routine's error wins over a failed release, which is reported.
 */
export async function holding<T>(
  redlock: KindHost,
  duration: number,
  settingsOrRoutine: CallSettings | Routine<T>,
  routine: Routine<T> | undefined,
  acquire: (settings: CallSettings) => Promise<Lock>,
): Promise<T> {
  const fn = typeof settingsOrRoutine === 'function' ? settingsOrRoutine : routine;
  const settings = typeof settingsOrRoutine === 'function' ? undefined : settingsOrRoutine;
  if (typeof fn !== 'function') throw new InvalidArgumentError('routine', 'must be a function', fn);
  if (settings !== undefined && !isObject(settings)) throw new InvalidArgumentError('settings', 'must be an object', settings);
  const threshold = (settings as CallSettings | undefined)?.automaticExtensionThreshold ?? redlock.settings.automaticExtensionThreshold;
  if (typeof duration === 'number' && threshold > duration - kUsingMarginMs) {
    throw new InvalidArgumentError('duration', `must be at least ${kUsingMarginMs} ms greater than automaticExtensionThreshold (${threshold} ms)`, duration);
  }
  const lock = await acquire({ ...settings, autoExtend: true });
  let result: T;
  try {
    result = await fn(lock.signal!);
  } catch (error) {
    await lock.release().catch((releaseError: unknown) => {
      redlock.masters.report(releaseError);
    });
    throw error;
  }
  await lock.release();
  return result;
}
