import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { mastersSuite } from '../helpers/masters.js';
import { timed } from '../helpers/timeout.js';
import { difference } from '../../sim/diff/compare.js';
import { kEdgeCases, kResp2Cases } from '../../sim/diff/edges.js';
import { SimMaster } from '../../sim/master/index.js';
import { normalize } from '../../sim/diff/compare.js';
import { createClient } from '@redis/client';
import { RealSide } from '../../sim/diff/real.js';
import { SimSide } from '../../sim/diff/sim.js';
import { describe, type Step } from '../../sim/diff/steps.js';

// The edge cases of sim/diff/edges.ts on a real redis-server and on the simulated master, in
// order (later cases read what earlier ones wrote): every reply must be the same, error texts
// included. The clock is the real server's, read in the same EXEC as each command.
const test = mastersSuite('simulated master: edge cases against redis-server', { count: 1, extraArgs: ['--enable-debug-command', 'yes'] });

test('every edge case answers as redis-server 7.0 does', timed(60_000, async ({ masters }) => {
  const real = new RealSide(masters.urls[0]!);
  await real.open();
  try {
    await real.reset();
    const sim = new SimSide();
    const differences: string[] = [];
    for (const args of kEdgeCases) {
      const step: Step = { kind: 'cmd', conn: 'foreign', args };
      const result = await real.run(step);
      sim.setClock(result.timeUs ?? real.estimateMs() * 1000);
      const found = difference(sim.run(step), result.reply, describe(step), { spanUs: result.spanUs, ttl: args[0] === 'PTTL' });
      if (found !== undefined) differences.push(found);
    }
    assert.equal(differences, [], `${differences.length} of ${kEdgeCases.length} cases differ:\n${differences.join('\n')}`);
  } finally {
    await real.close();
  }
}));

test('on a RESP2 connection, replies have RESP2\'s shapes on both', timed(20_000, async ({ masters }) => {
  const client = createClient({ url: masters.urls[0]!, RESP: 2, socket: { reconnectStrategy: false } });
  await client.connect();
  try {
    await client.sendCommand(['FLUSHALL']);
    const sim = new SimMaster({ now: () => 1_000_000 }).connect({ resp: 2 });
    for (const args of kResp2Cases) {
      let real: unknown;
      try {
        real = await client.sendCommand([...args]);
      } catch (error) {
        real = error;
      }
      assert.equal(normalize(sim.exec(args)), normalize(real), args.join(' '));
    }
  } finally {
    await client.close();
  }
}));

test.run();
