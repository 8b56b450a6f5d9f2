// Starts 5 embedded local masters, acquires and releases a lock over them, prints what happened.
import { Redlock, ResourceLockedError } from 'pipelock';
import { startMasters } from 'pipelock/testing';

const masters = await startMasters({ count: 5 });
const redlock = new Redlock(masters.urls, { retryCount: 0 });
try {
  console.log(`started ${masters.urls.length} masters: ${masters.urls.join(' ')}`);
  await redlock.ready();

  const lock = await redlock.acquire(['orders:42'], 10_000);
  console.log(`acquired ${lock.resources.join(',')} with token ${lock.value}, valid for ${lock.validity.toFixed(1)} ms (quorum ${redlock.quorum} of ${masters.urls.length})`);

  try {
    await redlock.acquire(['orders:42'], 10_000);
  } catch (error) {
    if (!(error instanceof ResourceLockedError)) throw error;
    console.log(`a second acquire is refused: ${error.code}, votes ${error.nodes.map((n) => n.vote).join(',')}`);
  }

  const extended = await lock.extend(20_000);
  console.log(`extended: ${extended.validity.toFixed(1)} ms left`);
  // release() resolves once a quorum deleted the keys; complete() waits for the other masters too.
  const released = await extended.release();
  console.log(`released: a quorum of ${redlock.quorum} confirmed (${released.released} of ${masters.urls.length} so far)`);
  await released.complete();
  console.log(`every master answered: released on ${released.released} of ${masters.urls.length}`);
} finally {
  await redlock.quit();
  await masters.close();
  console.log('masters stopped');
}
