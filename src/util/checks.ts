/** A non-null, non-array object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What was thrown, as an Error (a string or anything else is wrapped). */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
