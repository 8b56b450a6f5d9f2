import { createRequire } from 'node:module';
import { InvalidArgumentError } from '../errors.js';

const require = createRequire(import.meta.url);

/** Loads an optional peer dependency when its adapter is called, from pipelock's location (the app's node_modules). */
export function loadPeer(name: string, adapter: string): unknown {
  try {
    return require(name);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new InvalidArgumentError(name,
      `must be installed to use ${adapter} (npm install ${name}; it is an optional peer dependency of pipelock)`, 'not installed');
  }
}
