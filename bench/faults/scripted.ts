/**
 * The fault scenarios that run as scripts of their own (each has its own workload and verdict: many
 * waiters, lock kinds, a burst, the stall's memory), and their part of RELIABILITY.md. A script's
 * summary is what it prints; it is kept as printed, so the report shows the figures its verdict read.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface ScriptedScenario {
  readonly name: string;
  readonly file: string;
  readonly fault: string;
  /** Node flags the script needs. */
  readonly flags?: readonly string[];
}

export interface ScriptedResult {
  readonly name: string;
  readonly fault: string;
  readonly ok: boolean;
  /** What the script printed (stdout), ANSI escapes removed. */
  readonly output: string;
}

export const SCRIPTED: readonly ScriptedScenario[] = [
  { name: 'waiters', file: './waiters.ts', fault: '1,000 callers in 10 Redlocks on one key; every watch connection killed every 300 ms, a master restarted late' },
  { name: 'kinds', file: './kinds/run.ts', fault: 'semaphores (3 permits) and read/write locks contended while masters are killed, paused and restarted; an interval log counts the holders' },
  { name: 'burst-paused', file: './burst.ts', fault: 'a burst of acquisitions (retryCount 0) with a master SIGSTOPped after the first lock; beside the same burst unfaulted' },
  { name: 'stall-memory', file: './stall.ts', fault: 'the main loadtest job (100,000 keys, full speed) with a master SIGSTOPped for 30 s (CI: 12 s): the client\'s RSS and live memory bounded over their fault-free levels, given back after the resume', flags: ['--expose-gc'] },
];

/** Runs one script in a child process, its output shown as it comes and kept for the report. */
export function runScripted(scenario: ScriptedScenario, short: boolean): Promise<ScriptedResult> {
  const script = fileURLToPath(new URL(scenario.file, import.meta.url));
  const child = spawn(process.execPath, [...(scenario.flags ?? []), '--conditions=pipelock-source', '--import', 'tsx', script, ...(short ? ['--short'] : [])], { stdio: ['ignore', 'pipe', 'inherit'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    process.stdout.write(chunk);
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      // eslint-disable-next-line no-control-regex
      const output = Buffer.concat(chunks).toString('utf8').replace(/\u001b\[[0-9;]*m/g, '').trimEnd();
      resolve({ name: scenario.name, fault: scenario.fault, ok: code === 0, output });
    });
  });
}

/** RELIABILITY.md's section for the scripted scenarios of a full run. */
export function scriptedSection(results: readonly ScriptedResult[] | undefined): string {
  if (results === undefined || results.length === 0) return 'Not run with this result (the scripted scenarios run after the table\'s; `npm run faults` runs both).';
  const out = [
    'Each runs as a script of its own with its own workload and verdict; below is what it printed, the figures its verdict read.',
    '',
    '| scenario | fault | verdict |',
    '|---|---|---|',
    ...results.map((r) => `| \`${r.name}\` | ${r.fault} | ${r.ok ? 'met' : '**FAILED**'} |`),
  ];
  for (const r of results) out.push('', `### \`${r.name}\``, '', '```text', r.output, '```');
  return out.join('\n');
}
