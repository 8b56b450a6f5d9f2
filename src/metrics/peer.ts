import { createRequire } from 'node:module';
import { InvalidArgumentError } from '../errors.js';

const require = createRequire(import.meta.url);

/**
 * Loads an optional peer dependency when its adapter is called, not when `pipelock/metrics` is
 * imported: a user of one exporter never needs the other installed. Resolved from pipelock's own
 * location, which in an installed app is the app's node_modules, so the app's copy is the one used.
 */
export function loadPeer(name: string, adapter: string): unknown {
  try {
    return require(name);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new InvalidArgumentError(name, `must be installed to use ${adapter} (npm install ${name}; it is an optional peer dependency of pipelock)`, 'not installed');
  }
}
