import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** The package test's npm steps: pack a package of this repository, install tarballs into a project. */
export const run = promisify(execFile);
export const root = fileURLToPath(new URL('../..', import.meta.url));

export interface Packed {
  readonly tarball: string;
  readonly files: readonly string[];
  readonly manifest: { bin?: unknown; dependencies?: Record<string, string>; peerDependencies?: Record<string, string> };
}

/** `npm pack` of the package at `cwd` into `destination`; its own build (prepare, prepack) runs first, as on a user's `npm pack`. */
export async function pack(cwd: string, destination: string): Promise<Packed> {
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', destination], { cwd, maxBuffer: 16 << 20 });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  return {
    tarball: join(destination, packed!.filename),
    files: packed!.files.map((f) => f.path),
    manifest: JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8')) as Packed['manifest'],
  };
}

export function install(cwd: string, ...what: string[]) {
  return run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--no-package-lock', ...what], { cwd, maxBuffer: 16 << 20 });
}

/** The version this repository develops against, so a consumer installs it from npm's cache. */
export function devVersion(name: string): string {
  return (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

/** Every package name installed anywhere under `dir`'s node_modules, nested copies included. */
export async function installed(dir: string): Promise<Set<string>> {
  const names = new Set<string>();
  for (const entry of await readdir(join(dir, 'node_modules'), { recursive: true })) {
    const parts = entry.split('/');
    const name = parts.slice(parts.lastIndexOf('node_modules') + 1);
    if (name.length === 1 && !name[0]!.startsWith('.') && !name[0]!.startsWith('@')) names.add(name[0]!);
    if (name.length === 2 && name[0]!.startsWith('@')) names.add(name.join('/'));
  }
  return names;
}
