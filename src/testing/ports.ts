import { createServer } from 'node:net';

/**
 * Asks the OS for a free port on `host` by listening on port 0, then releases it.
 * Another process may take it before redis-server binds; the caller retries on "Address already in use".
 */
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
