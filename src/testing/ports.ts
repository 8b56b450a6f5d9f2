import { createServer } from 'node:net';

/** A free port on `host` from listening on port 0; another process may take it first, so the caller retries. */
export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ port: 0, host, exclusive: true }, () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === 'object') resolve(address.port);
        else reject(new Error(`could not read the port of a listener on ${host}`));
      });
    });
  });
}
