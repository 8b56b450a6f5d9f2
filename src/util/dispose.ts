/** `Symbol.asyncDispose` (Node 20.19+), else the registered symbol TypeScript's and esbuild's `using` helpers use. */
const native = (Symbol as { readonly asyncDispose?: symbol }).asyncDispose;
export const kAsyncDispose: typeof Symbol.asyncDispose = (native ?? Symbol.for('Symbol.asyncDispose')) as typeof Symbol.asyncDispose;
