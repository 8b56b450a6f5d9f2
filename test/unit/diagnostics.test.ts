import '../helpers/setup.js';
import { subscribe, tracingChannel, unsubscribe } from 'node:diagnostics_channel';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ACQUIRE_CHANNEL, NODE_CALL_CHANNEL, RELEASE_CHANNEL, acquireSpan, nodeCallStart, publishNodeCall, releaseSpan, traced } from '../../src/engine/channels.js';
import type { OperationContext } from '../../src/metrics/collector.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { codeOf } from '../../src/metrics/collector.js';
import { loadPeer } from '../../src/metrics/peer.js';
import type { Lock } from '../../src/lifecycle/lock.js';

const test = suite('diagnostics');

function acquireWork(this: { calls: number }, resources: readonly string[], duration: number, settings: undefined): Promise<string> {
  this.calls++;
  return Promise.resolve(`${resources.join()} ${duration} ${String(settings)}`);
}

test('without subscribers an operation has no span (the caller makes the plain call): no context, no clock read', () => {
  assert.is(acquireSpan(['k'], 10), undefined);
  assert.is(releaseSpan({ resources: ['k'] }), undefined);
  assert.is(nodeCallStart(), 0, 'no clock read for master calls');
});

test('with a subscriber: start and asyncEnd see one context with the start time and the result', async () => {
  const seen: [string, OperationContext][] = [];
  const handlers = {
    start: (c: unknown) => seen.push(['start', c as OperationContext]),
    end: () => undefined,
    asyncStart: () => undefined,
    asyncEnd: (c: unknown) => seen.push(['asyncEnd', c as OperationContext]),
    error: (c: unknown) => seen.push(['error', c as OperationContext]),
  };
  const trace = tracingChannel(ACQUIRE_CHANNEL);
  trace.subscribe(handlers);
  try {
    const before = performance.now();
    const self = { calls: 0 };
    const result = await traced(acquireSpan(['a', 'b'], 5)!, () => acquireWork.call(self, ['a', 'b'], 5, undefined));
    assert.is(self.calls, 1);
    assert.is(result, 'a,b 5 undefined');
    assert.equal(seen.map(([event]) => event), ['start', 'asyncEnd']);
    const context = seen[0]![1];
    assert.is(seen[1]![1], context, 'one context for the whole call');
    assert.equal([context.operation, context.resources, context.duration, context.result], ['acquire', ['a', 'b'], 5, 'a,b 5 undefined']);
    assert.ok(context.start >= before && context.start <= performance.now());
  } finally {
    trace.unsubscribe(handlers);
  }
});

test('a failed operation is published on error and asyncEnd with the error, and still rejects', async () => {
  const ends: OperationContext[] = [];
  const onEnd = (c: unknown): void => {
    ends.push(c as OperationContext);
  };
  subscribe(`tracing:${RELEASE_CHANNEL}:asyncEnd`, onEnd);
  try {
    const failure = new Error('no quorum');
    const lock = { resources: ['r'] } as unknown as Lock;
    const rejected = await traced(releaseSpan(lock)!, () => Promise.reject(failure)).catch((e: unknown) => e);
    assert.is(rejected, failure);
    assert.is(ends.length, 1);
    assert.is(ends[0]!.error, failure);
    assert.is(ends[0]!.lock, lock);
    assert.equal(ends[0]!.resources, ['r']);
    // Not a Lock at all (the method rejects it with a typed error): the context must not throw first.
    const odd = await traced(releaseSpan(null)!, () => Promise.reject(failure)).catch((e: unknown) => e);
    assert.is(odd, failure);
    assert.equal(ends[1]!.resources, []);
  } finally {
    unsubscribe(`tracing:${RELEASE_CHANNEL}:asyncEnd`, onEnd);
  }
});

test('master calls are timed only when someone listened at dispatch', () => {
  const seen: unknown[] = [];
  const listener = (m: unknown): void => {
    seen.push(m);
  };
  publishNodeCall(0, 'a:1', 0, 1);
  subscribe(NODE_CALL_CHANNEL, listener);
  try {
    publishNodeCall(0, 'a:1', 0, 1);
    assert.is(seen.length, 0, 'a call dispatched while nobody listened is not reported');
    const start = nodeCallStart();
    assert.ok(start > 0);
    publishNodeCall(2, 'c:3', start, 7);
    assert.is(seen.length, 1);
    const message = seen[0] as { node: number; name: string; operations: number; durationMs: number };
    assert.equal([message.node, message.name, message.operations], [2, 'c:3', 7]);
    assert.ok(message.durationMs >= 0);
  } finally {
    unsubscribe(NODE_CALL_CHANNEL, listener);
  }
});

test('a missing optional peer dependency is an InvalidArgumentError naming what to install', () => {
  const error = (() => {
    try {
      loadPeer('pipelock-no-such-peer', 'someAdapter()');
    } catch (e) {
      return e;
    }
    return undefined;
  })();
  assert.instance(error, InvalidArgumentError);
  assert.is((error as InvalidArgumentError).argument, 'pipelock-no-such-peer');
  assert.match((error as Error).message, /npm install pipelock-no-such-peer/);
  assert.match((error as Error).message, /someAdapter\(\)/);
  assert.type((loadPeer('prom-client', 'x') as { Registry: unknown }).Registry, 'function');
});

test('error codes as labels: pipelock and Node codes, a Redis error\'s leading word, else the class', () => {
  assert.is(codeOf(Object.assign(new Error('x'), { code: 'ERR_PIPELOCK_LOCK_LOST' })), 'ERR_PIPELOCK_LOCK_LOST');
  assert.is(codeOf(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' })), 'ECONNREFUSED');
  assert.is(codeOf(new Error('NOSCRIPT No matching script. Please use EVAL.')), 'NOSCRIPT');
  assert.is(codeOf(new Error('READONLY You can\'t write against a read only replica.')), 'READONLY');
  assert.is(codeOf(new TypeError('weird 123 message')), 'TypeError');
  assert.is(codeOf(Object.assign(new Error('x'), { code: 'not a code with spaces' })), 'Error');
  assert.is(codeOf('a string'), 'UNKNOWN');
});

test.run();
