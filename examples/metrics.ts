// Serves pipelock's metrics at /metrics for Prometheus to scrape, while /work?n=N does N locked jobs.
// Run it: node --conditions=pipelock-source --import tsx examples/metrics.ts   then: curl localhost:9464/work?n=10; curl localhost:9464/metrics
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { Redlock } from 'pipelock';
import { prometheusMetrics } from 'pipelock/metrics';

/** An HTTP server on `port` (0: any free one) exporting `registry`, with pipelock's metrics registered in it. */
export async function startMetricsServer(urls: readonly string[], registry: Registry, port: number): Promise<{ url: string; close(): Promise<void> }> {
  const metrics = prometheusMetrics({ registry });
  const redlock = new Redlock(urls, { retryCount: 10 });
  await redlock.ready();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const respond = async (): Promise<void> => {
      if (url.pathname === '/metrics') {
        res.setHeader('content-type', registry.contentType);
        res.end(await registry.metrics());
      } else if (url.pathname === '/work') {
        const n = Number(url.searchParams.get('n') ?? 1);
        for (let i = 0; i < n; i++) await redlock.using([`example:job:${i % 4}`], 1000, () => Promise.resolve());
        res.end(`did ${n} locked jobs\n`);
      } else {
        res.statusCode = 404;
        res.end();
      }
    };
    respond().catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  return {
    url: `http://127.0.0.1:${bound}`,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await redlock.quit();
      metrics.close();
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { startMasters } = await import('pipelock/testing');
  const masters = await startMasters({ count: 3 });
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const { url } = await startMetricsServer(masters.urls, registry, Number(process.env.PORT ?? 9464));
  console.log(`serving ${url}/metrics (and ${url}/work?n=10); Ctrl-C stops it and the masters`);
}
