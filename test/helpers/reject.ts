import * as assert from 'uvu/assert';
import { InvalidArgumentError } from '../../src/errors.js';

/** Awaits a promise that must reject and returns its reason (uvu's assert has no rejects). */
export async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string }>;
/** …and checks the reason is an instance of `Class`. */
export async function rejection<E extends Error>(promise: Promise<unknown>, Class: abstract new (...args: never[]) => E): Promise<E>;
export async function rejection(promise: Promise<unknown>, Class: abstract new (...args: never[]) => Error = Error): Promise<Error> {
  let value: unknown;
  try {
    value = await promise;
  } catch (error) {
    if (!(error instanceof Class)) {
      throw new Error(`expected a rejection with ${Class.name}, got ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`, { cause: error });
    }
    return error;
  }
  throw new Error(`expected a rejection, got a resolution with ${String(value)}`);
}

/** Calls `fn`, which must throw an InvalidArgumentError naming `argument`. */
export function throwsInvalid(fn: () => unknown, argument: string): void {
  try {
    fn();
  } catch (error) {
    assert.instance(error, InvalidArgumentError);
    assert.is((error as InvalidArgumentError).argument, argument);
    return;
  }
  assert.unreachable(`expected InvalidArgumentError for ${argument}`);
}
