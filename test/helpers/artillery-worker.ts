/**
 * One Artillery worker in a process of its own (artillery run's local workers are threads; on
 * Fargate and Lambda, machines): runs the script given as JSON in argv[2] through the minimal runner
 * and prints what the engine emitted as JSON on stdout. Like Artillery's workers it says when it is
 * ready (a line on stderr) and starts its phases when told to (a line on stdin).
 */
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { runArtillery, type ArtilleryScript } from './artillery-runner.js';

// Artillery's global: its test run id is the same in every worker of a run.
(globalThis as { artillery?: unknown }).artillery = { testRunId: process.env.ARTILLERY_TEST_RUN_ID };
const script = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as ArtilleryScript;
const emitted = await runArtillery(script, async () => {
  process.stderr.write('readyWaiting\n');
  await once(process.stdin, 'data');
  process.stdin.pause();
});
process.stdout.write(JSON.stringify(emitted));
// Artillery's worker exits once it has reported; the engine's connections close in the background.
process.exit(0);
