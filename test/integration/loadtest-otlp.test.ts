import '../helpers/setup.js';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from '../helpers/cli.js';
import { timed } from '../helpers/timeout.js';

// --otlp: the official OpenTelemetry exporter posts the run's metrics, while it runs, to a local OTLP/HTTP endpoint.
const test = suite('loadtest otlp');

function body(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      resolve(text);
    });
  });
}

test('cycles, errors, latency histograms by operation reach the endpoint during the run and at its end', timed(60_000, async () => {
  const posts: { at: number; path: string; body: string }[] = [];
  const server = createServer((request, response) => {
    void body(request).then((text) => {
      posts.push({ at: Date.now(), path: request.url ?? '', body: text });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/metrics`;
    let started = 0;
    const run = await cli(['loadtest', '--masters', '3', '--workers', '2', '--rate', '100', '--duration', '3', '--warmup', '0.5', '--otlp', url], {
      onStart: () => {
        started = Date.now();
      },
    });
    const ended = Date.now();
    assert.is(run.code, 0, run.stderr);
    assert.ok(posts.length >= 2, `${posts.length} exports`);
    assert.ok(posts.every((p) => p.path === '/v1/metrics'));
    assert.ok(posts.some((p) => p.at > started && p.at < ended - 500), 'an export while the run lasted');
    const all = posts.map((p) => p.body).join('\n');
    for (const name of ['pipelock.loadtest.cycles', 'pipelock.loadtest.latency']) assert.ok(all.includes(name), `${name} exported`);
    for (const op of ['acquire', 'release', 'cycle']) assert.ok(all.includes(`"stringValue":"${op}"`), `latency of ${op}`);
    assert.ok(all.includes('"explicitBounds"'), 'latencies as a histogram');
  } finally {
    server.close();
  }
}));

test('--otlp takes an http(s) URL', timed(20_000, async () => {
  const run = await cli(['loadtest', '--otlp', 'localhost:4318']);
  assert.is(run.code, 2);
  assert.match(run.stderr, /--otlp must be an http:\/\/ or https:\/\/ URL/);
}));

test.run();
