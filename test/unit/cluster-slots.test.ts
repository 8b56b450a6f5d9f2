import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkOneSlot, clusterCounterKey, slotOf } from '../../src/transport/cluster/slots.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { clusterMasterUrls, memberOf, plainUrl } from '../../tools/src/load/members.js';
import { parseServers } from '../../tools/src/cli/flags.js';

test('slotOf: Redis Cluster hash slots, hash tags included (cluster-spec examples)', () => {
  assert.is(slotOf('foo'), 12182);
  assert.is(slotOf('{user1000}.following'), slotOf('{user1000}.followers'));
  assert.is(slotOf('foo{}{bar}'), slotOf('foo{}{bar}'));
  assert.is.not(slotOf('foo{}{bar}'), slotOf('bar'));
});

test('checkOneSlot: keys of one slot pass, keys of two slots name resources and the hash tag', () => {
  checkOneSlot(['{o}:a', '{o}:b', 'pipelock:fence:{o}:a'], ['{o}:a', '{o}:b']);
  checkOneSlot(['a'], ['a']);
  assert.throws(() => { checkOneSlot(['a', 'b'], ['a', 'b']); }, (e: Error) => e instanceof InvalidArgumentError && e.message.startsWith('resources must all hash to one slot') && e.message.includes('hash tag'));
});

test('clusterCounterKey: the counter shares its resource slot; a plain name is tagged whole', () => {
  assert.is(clusterCounterKey('{o}:a'), 'pipelock:fence:{o}:a');
  assert.is(clusterCounterKey('plain'), 'pipelock:fence:{plain}');
  for (const resource of ['plain', '{o}:a', 'x{y']) assert.is(slotOf(clusterCounterKey(resource)), slotOf(resource));
  for (const resource of ['a}b', 'a{}b']) assert.throws(() => clusterCounterKey(resource), (e: Error) => e instanceof InvalidArgumentError && e.message.startsWith('resources must, for fencing'));
});

test('loadtest members: redis+cluster:// is one cluster member from one seed; CLUSTER NODES gives its masters', () => {
  assert.equal(parseServers('redis://h:1,redis+cluster://h:7000', true), ['redis://h:1', 'redis+cluster://h:7000']);
  assert.throws(() => parseServers('redis+cluster://h:7000'), /redis:\/\/ or rediss:\/\/ URLs; entry 1/);
  assert.equal(memberOf('rediss+cluster://u:p@h:7000'), { cluster: ['rediss://u:p@h:7000'] });
  assert.is(memberOf('redis://h:1'), 'redis://h:1');
  assert.is(plainUrl('redis+cluster://h:7000'), 'redis://h:7000');
  const nodes = [
    'a1 127.0.0.1:7000@17000 myself,master - 0 0 1 connected 0-5460',
    'b2 127.0.0.1:7001@17001 master - 0 0 2 connected 5461-10922',
    'c3 127.0.0.1:7002@17002 slave b2 0 0 2 connected',
    'd4 127.0.0.1:7003@17003 master,fail - 0 0 3 connected',
    '',
  ].join('\n');
  assert.equal(clusterMasterUrls('redis://:secret@10.0.0.1:7000', nodes), ['redis://:secret@127.0.0.1:7000', 'redis://:secret@127.0.0.1:7001']);
});

test.run();
