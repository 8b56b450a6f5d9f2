/** A short, safe description of an unexpected value for an error message (long strings cut). */
export function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' || value == null) return String(value);
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (typeof value === 'function') return 'a function';
  return `an object (${Object.prototype.toString.call(value).slice(8, -1)})`;
}
