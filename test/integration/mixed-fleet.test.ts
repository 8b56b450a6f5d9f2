/**
 * A fleet half-migrated: node-redlock v5 (the devDependency, on ioredis clients) and pipelock (its
 * defaults: waiting, the gate, passing within a process) contend for the same resources at once,
 * with acquire/release and using() on both sides. A shared ledger records who is inside each
 * resource's section; two holders inside at once is a violation. What interoperates (mutual
 * exclusion) and what cannot (the gate's order, passing, fencing) is stated in
 * docs/migrating-from-node-redlock.md, "Rolling migration", from what this test counts.
 */
import '../helpers/setup.js';
import { Redis } from 'ioredis';
import * as assert from 'uvu/assert';
import { Redlock } from '../../src/index.js';
import { mastersSuite } from '../helpers/masters.js';
import { closeAll, connectAll } from '../helpers/redis.js';
import { timed } from '../helpers/timeout.js';

const test = mastersSuite('mixed fleet', { count: 3, flushEach: true });
const kResources = ['fleet:a', 'fleet:b'];
const kRunMs = 4000;
const later = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Ledger {
  readonly inside: Map<string, string>;
  violations: number;
  readonly sections: Record<string, number>;
}

/** One section: enter (nobody else may be inside), hold across a timer, leave. */
async function section(ledger: Ledger, resource: string, who: string): Promise<void> {
  if (ledger.inside.has(resource)) ledger.violations++;
  ledger.inside.set(resource, who);
  await later(2);
  if (ledger.inside.get(resource) !== who) ledger.violations++;
  ledger.inside.delete(resource);
  ledger.sections[who.split('#')[0]!] = (ledger.sections[who.split('#')[0]!] ?? 0) + 1;
}

type Contender = (resource: string, who: string) => Promise<void>;

async function loop(deadline: number, contender: Contender, who: string, seed: number): Promise<void> {
  for (let i = seed; performance.now() < deadline; i++) {
    await contender(kResources[i % kResources.length]!, who).catch(() => undefined);
  }
}

test('node-redlock v5 and pipelock exclude each other on the same resources (acquire/release and using)', timed(60_000, async ({ masters }) => {
  const ledger: Ledger = { inside: new Map(), violations: 0, sections: {} };
  // As the benchmarks load it: redlock 5's types resolve only as CommonJS here (docs/migrating-from-node-redlock.md#typescript).
  const { default: V5Redlock } = await import('redlock');
  const ioredis = masters.urls.map((url) => new Redis(url));
  const v5 = new V5Redlock(ioredis, { retryCount: 100, retryDelay: 20, retryJitter: 20 });
  const pipelock = new Redlock(masters.urls);
  const contenders: Record<string, Contender> = {
    'v5-acquire': async (resource, who) => {
      const lock = await v5.acquire([resource], 1000);
      try { await section(ledger, resource, who); } finally { await lock.release().catch(() => undefined); }
    },
    'v5-using': (resource, who) => v5.using([resource], 1000, () => section(ledger, resource, who)),
    'pipelock-acquire': async (resource, who) => {
      const lock = await pipelock.acquire([resource], 1000);
      try { await section(ledger, resource, who); } finally { await lock.release(); }
    },
    'pipelock-using': (resource, who) => pipelock.using([resource], 1000, () => section(ledger, resource, who)),
  };
  const deadline = performance.now() + kRunMs;
  try {
    await Promise.all(Object.entries(contenders).flatMap(([name, contender]) => [0, 1, 2].map((i) => loop(deadline, contender, `${name}#${i}`, i))));
  } finally {
    await pipelock.quit();
    await v5.quit();
  }
  console.log(`mixed fleet: sections ${JSON.stringify(ledger.sections)}, violations ${ledger.violations}`);
  assert.is(ledger.violations, 0, 'no two holders inside one resource at once');
  for (const name of Object.keys(contenders)) assert.ok((ledger.sections[name] ?? 0) > 0, `${name} got sections: ${JSON.stringify(ledger.sections)}`);
  const probes = await connectAll(masters.urls);
  try {
    assert.equal(await Promise.all(probes.map((probe) => probe.keys('fleet:*'))), [[], [], []], 'no lock key left');
  } finally {
    await closeAll(probes);
  }
}));

test.run();
