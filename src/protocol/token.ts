import { randomFillSync } from 'node:crypto';

/** 160 bits, as the seeds suggest (20 random bytes); well above the 128-bit floor. */
export const TOKEN_BYTES = 20;
const POOL_TOKENS = 256;

// One randomFillSync per 256 tokens instead of one randomBytes call (and Buffer) per token.
// The pool is module-private and every byte is handed out once.
const pool = Buffer.allocUnsafe(TOKEN_BYTES * POOL_TOKENS);
let offset = pool.length;

/** A fresh lock token from the CSPRNG: 27 base64url characters. */
export function createToken(): string {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const token = pool.toString('base64url', offset, offset + TOKEN_BYTES);
  offset += TOKEN_BYTES;
  return token;
}
