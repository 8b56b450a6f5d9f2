import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A small TCP proxy in front of one master, for faults a signal cannot make: added latency on
 * every chunk in both directions, and dropped connections. Loopback only.
 */
export class FaultProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #target: { host: string; port: number };
  /** Added to every chunk, each way, in ms. */
  delayMs = 0;
  port = 0;

  private constructor(target: { host: string; port: number }) {
    this.#target = target;
    this.#server = createServer((client) => {
      this.#pipe(client);
    });
  }

  static async start(targetUrl: string): Promise<FaultProxy> {
    const url = new URL(targetUrl);
    const proxy = new FaultProxy({ host: url.hostname, port: Number(url.port) });
    await new Promise<void>((resolve, reject) => {
      proxy.#server.once('error', reject);
      proxy.#server.listen(0, '127.0.0.1', () => {
        resolve();
      });
    });
    const address = proxy.#server.address();
    if (address === null || typeof address === 'string') throw new Error('proxy has no port');
    proxy.port = address.port;
    return proxy;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Cuts every open connection (clients see a reset and reconnect). */
  drop(): void {
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
  }

  async close(): Promise<void> {
    this.drop();
    await new Promise<void>((resolve) => this.#server.close(() => {
      resolve();
    }));
  }

  #pipe(client: Socket): void {
    const upstream = connect(this.#target.port, this.#target.host);
    this.#sockets.add(client);
    this.#sockets.add(upstream);
    const forward = (from: Socket, to: Socket): void => {
      // One queue per direction, released in order by one timer: a chunk never overtakes an
      // earlier one, even when delayMs drops while chunks wait (TCP does not reorder; a proxy
      // that did would hand replies to the wrong commands).
      const queue: { at: number; chunk: Buffer }[] = [];
      let timer: NodeJS.Timeout | undefined;
      const pump = (): void => {
        timer = undefined;
        const now = performance.now();
        while (queue.length > 0 && queue[0]!.at <= now) to.write(queue.shift()!.chunk);
        if (queue.length > 0) timer = setTimeout(pump, queue[0]!.at - now);
      };
      from.on('data', (chunk: Buffer) => {
        if (this.delayMs <= 0 && queue.length === 0) {
          to.write(chunk);
          return;
        }
        const at = Math.max(performance.now() + this.delayMs, queue.at(-1)?.at ?? 0);
        queue.push({ at, chunk });
        timer ??= setTimeout(pump, at - performance.now());
      });
      to.once('close', () => {
        clearTimeout(timer);
        queue.length = 0;
      });
    };
    forward(client, upstream);
    forward(upstream, client);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
      this.#sockets.delete(client);
      this.#sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  }
}
