import { writeFile } from 'node:fs/promises';
import { renderHtml } from '../load/html.js';
import type { RunResult } from '../load/result.js';

/** Writes --json and --html when asked; a failure names the file. */
export async function writeOutputs(result: RunResult,
  files: { readonly json: string | undefined; readonly html: string | undefined }): Promise<void> {
  if (files.json !== undefined) await write(files.json, `${JSON.stringify(result, null, 2)}\n`);
  if (files.html !== undefined) await write(files.html, renderHtml(result));
}

async function write(file: string, text: string): Promise<void> {
  try {
    await writeFile(file, text);
  } catch (error) {
    throw new Error(`cannot write ${file}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  console.error(`wrote ${file}`);
}
