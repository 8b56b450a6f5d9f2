import '../helpers/setup.js';
import { spawn } from 'node:child_process';
import * as assert from 'uvu/assert';
import { mastersSuite } from '../helpers/masters.js';
import { connectAll, closeAll } from '../helpers/redis.js';
import { timed } from '../helpers/timeout.js';
import { tsFlags } from '../helpers/ts-flags.js';

// Issue 44: the worker renews while its process lives, and only then: a process SIGKILLed while
// its worker renews leaves keys that expire by their TTL, since nothing renews them any more.
const test = mastersSuite('renewal worker of a killed process', { count: 3, flushEach: true });

const kHolder = new URL('../helpers/worker-holder.ts', import.meta.url);

test('a holder SIGKILLed while its worker renews: its keys, renewed past their first TTL, expire within one duration', timed(30_000, async ({ masters }) => {
  const keys = Array.from({ length: 50 }, (_, i) => `killed-${i}`);
  const duration = 1000;
  const job = JSON.stringify({ urls: masters.urls, keys, duration, hold: 2500 });
  const child = spawn(process.execPath, [...tsFlags(), kHolder.pathname, job], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => { resolve(signal); }));
  const probes = await connectAll(masters.urls);
  try {
    const held = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); if (out.includes('\n')) resolve(out.trim()); });
      child.once('exit', () => { reject(new Error(`the holder exited before holding: ${out}`)); });
    });
    assert.is(held, `held ${keys.length}`, 'the worker kept every lock 2.5 times its duration');
    const alive = async (): Promise<number> => {
      const counts = await Promise.all(probes.map((probe) => probe.exists(keys)));
      return counts.reduce((sum, count) => sum + count, 0);
    };
    assert.is(await alive(), keys.length * probes.length, 'every key on every master before the kill');
    child.kill('SIGKILL');
    assert.is(await exited, 'SIGKILL');
    const ttls = await Promise.all(probes.map((probe) => Promise.all(keys.map((key) => probe.pTTL(key)))));
    assert.ok(ttls.flat().every((ttl) => ttl <= duration), 'no key has more than one duration left');
    await new Promise((resolve) => setTimeout(resolve, duration + 100));
    assert.is(await alive(), 0, 'every key expired by its TTL');
  } finally {
    child.kill('SIGKILL');
    await closeAll(probes);
  }
}));

test.run();
