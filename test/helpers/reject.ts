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
