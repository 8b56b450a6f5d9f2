import { InvalidArgumentError } from '../errors.js';
import { mergeSettings, type ResolvedSettings } from '../settings.js';
import { isObject } from '../util/checks.js';
import type { LockLostHandler } from './lock.js';

/** One call's settings, resolved once: the numbers, and the flags with nothing optional left. */
export interface ResolvedCall {
  /** The instance's own settings object when the call overrides no number (no copy per call). */
  readonly settings: ResolvedSettings;
  readonly signal: AbortSignal | undefined;
  readonly autoExtend: boolean;
  readonly fencing: boolean;
  readonly onLockLost: LockLostHandler | undefined;
}

/** The numbers a call may override. */
export const CALL_KEYS = new Set<string>(['driftFactor', 'retryCount', 'retryDelay', 'retryJitter', 'automaticExtensionThreshold',
  'nodeTimeout', 'maxExtensions', 'maxHoldTime', 'acquireTimeout', 'watchHeld']);
/** Per-call keys that are not numbers of ResolvedSettings; checked here. */
export const CALL_EXTRAS = new Set<string>(['signal', 'autoExtend', 'onLockLost', 'fencing']);

/** The resolution of a call that passed no settings: made once per Redlock. */
export function plainCall(base: ResolvedSettings): ResolvedCall {
  return Object.freeze({ settings: base, signal: undefined, autoExtend: false, fencing: false, onLockLost: undefined });
}

/** Resolves one call's settings, copying numbers only when the call overrides one (`{ signal }` copies nothing). */
export function resolveCall(base: ResolvedSettings, plain: ResolvedCall, settings: unknown): ResolvedCall {
  if (settings === undefined) return plain;
  if (!isObject(settings)) throw new InvalidArgumentError('settings', 'must be an object', settings);
  const signal = settings.signal;
  if (signal !== undefined && !(signal instanceof AbortSignal))
    throw new InvalidArgumentError('settings.signal', 'must be an AbortSignal', signal);
  for (const flag of ['autoExtend', 'fencing'] as const) {
    if (settings[flag] !== undefined && typeof settings[flag] !== 'boolean')
      throw new InvalidArgumentError(`settings.${flag}`, 'must be a boolean', settings[flag]);
  }
  const onLockLost = settings.onLockLost;
  if (onLockLost !== undefined && typeof onLockLost !== 'function')
    throw new InvalidArgumentError('settings.onLockLost', 'must be a function', onLockLost);
  let numbers = false;
  for (const key of Object.keys(settings)) {
    if (settings[key] !== undefined && !CALL_EXTRAS.has(key)) {
      numbers = true;
      break;
    }
  }
  return {
    settings: numbers ? mergeSettings(base, settings, 'settings', CALL_KEYS, CALL_EXTRAS) : base,
    signal,
    autoExtend: settings.autoExtend === true,
    fencing: settings.fencing === true,
    onLockLost: onLockLost as LockLostHandler | undefined,
  };
}
