import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy that forwards requests whole and replies until a byte budget runs out: the reply
 * chunk that crosses it is forwarded only up to the budget, and then both sockets are reset. Its
 * client sees a reply cut mid-buffer, then a reset. `budget` Infinity forwards everything.
 */
export class CutProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  /** Reply bytes still to forward before the cut (counted across connections). */
  budget = Infinity;
  port = 0;

  private constructor(target: { host: string; port: number }) {
    this.#server = createServer((client) => {
      const upstream = connect(target.port, target.host);
      this.#sockets.add(client).add(upstream);
      client.on('data', (chunk: Buffer) => upstream.write(chunk));
      upstream.on('data', (chunk: Buffer) => {
        if (chunk.length <= this.budget) {
          this.budget -= chunk.length;
          client.write(chunk);
          return;
        }
        client.write(chunk.subarray(0, this.budget), () => {
          client.resetAndDestroy();
          upstream.destroy();
        });
        this.budget = Infinity;
      });
      for (const socket of [client, upstream]) {
        socket.on('error', () => undefined);
        socket.on('close', () => {
          this.#sockets.delete(socket);
          client.destroy();
          upstream.destroy();
        });
      }
    });
  }

  static async start(targetUrl: string): Promise<CutProxy> {
    const url = new URL(targetUrl);
    const proxy = new CutProxy({ host: url.hostname, port: Number(url.port) });
    await new Promise<void>((resolve) => proxy.#server.listen(0, '127.0.0.1', resolve));
    proxy.port = (proxy.#server.address() as { port: number }).port;
    return proxy;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => { resolve(); }));
  }
}
