import { parseArgs } from 'node:util';
import { UsageError } from './errors.js';
import { checkRepeats, fromParseArgs, parseServers } from './flags.js';

/** One flag of an operator command: its value's name for --help, the help, and its default. */
export interface OpsFlag {
  readonly arg?: string;
  readonly help: string;
}

/** Parses `pipelock <command>` flags (strings and --json/--help booleans); --servers is required. */
export function parseOpsFlags(command: string, args: readonly string[], flags: Readonly<Record<string, OpsFlag>>,
  booleans: readonly string[], clusters = false): { servers: string[]; values: Record<string, string | boolean | undefined> } | 'help' {
  const options: Record<string, { type: 'string' | 'boolean' }> = { help: { type: 'boolean' } };
  for (const name of Object.keys(flags)) options[name] = { type: booleans.includes(name) ? 'boolean' : 'string' };
  let values: Record<string, string | boolean | undefined>;
  try {
    const parsed = parseArgs({ args: [...args], options, strict: true, allowPositionals: false, tokens: true });
    checkRepeats(parsed.tokens);
    values = parsed.values;
  } catch (error) {
    throw fromParseArgs(error, command);
  }
  if (values.help === true) return 'help';
  if (typeof values.servers !== 'string')
    throw new UsageError('--servers', 'is required: the comma-separated redis:// URLs of the masters your Redlock uses');
  return { servers: parseServers(values.servers, clusters), values };
}

export function usage(head: string, flags: Readonly<Record<string, OpsFlag>>, tail: string): string {
  const lines = Object.entries(flags).map(([name, flag]) => {
    const left = `  --${name}${flag.arg === undefined ? '' : ` ${flag.arg}`}`;
    return `${left.padEnd(26)}${flag.help.replaceAll('\n', `\n${' '.repeat(26)}`)}`;
  });
  return `${head}\n\n${lines.join('\n')}\n  --help                  show this\n\n${tail}`;
}
