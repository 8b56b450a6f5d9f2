// `await using` on pipelock's handles and a leader election, over 3 embedded local masters.
// Typechecked with the rest of the repository (TypeScript ≥ 5.2); run it with
// `node --conditions=pipelock-source --import tsx examples/scopes.ts` (tsx lowers the syntax for Node 20 and 22).
import { Redlock } from 'pipelock';
import { startMasters } from 'pipelock/testing';

const masters = await startMasters({ count: 3 });
const redlock = new Redlock(masters.urls);
try {
  {
    await using lock = await redlock.acquire(['orders:42'], 10_000);
    await using permit = await redlock.semaphore('exports', 4).acquire(10_000);
    console.log(`holding ${lock.resources.join(',')} and ${permit.resources[0] ?? ''}`);
  } // both released here, the permit first
  const election = redlock.election('scheduler', { lease: 3_000 });
  {
    await using term = await election.campaign({ value: 'pod-a' });
    console.log(`leading with term ${term.term}; leader() reads ${JSON.stringify(await election.leader())}`);
  } // resigned here
  console.log(`after the scope: leader() reads ${JSON.stringify(await election.leader())}`);
} finally {
  await redlock.quit();
  await masters.close();
}
