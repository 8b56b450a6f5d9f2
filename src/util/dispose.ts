/**
 * TC39's `Symbol.asyncDispose`, which `await using` calls at the end of a scope. Node 20.19+ has
 * it; where a runtime lacks it, the registered symbol is what TypeScript's and esbuild's `using`
 * helpers fall back to, so a handle keyed by it is disposed by either.
 */
const native = (Symbol as { readonly asyncDispose?: symbol }).asyncDispose;
export const kAsyncDispose: typeof Symbol.asyncDispose = (native ?? Symbol.for('Symbol.asyncDispose')) as typeof Symbol.asyncDispose;
