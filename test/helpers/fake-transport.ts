import { LEAN_SHA } from '../../src/protocol/lean-script.js';
import { RELEASE_SHA } from '../../src/protocol/release-script.js';
import { PROBE_KEY } from '../../src/protocol/native.js';
import { scriptBySource } from '../../src/protocol/calls.js';
import type { Sink, Transport } from '../../src/transport/transport.js';

/** How a fake member answers the capability probes (src/engine/capability.ts) and SCRIPT LOAD. */
export interface FakeServer {
  /** Answers SET … IFEQ (Valkey 8.1+, Redis 8.4+). */
  readonly setIfEq?: boolean;
  readonly delIfEq?: boolean;
  readonly delEx?: boolean;
  /** Answers MSETEX (Valkey 9.1+, Redis 8.4+). */
  readonly msetex?: boolean;
  /** SCRIPT LOAD refused with NOPERM (an ACL user without @scripting). */
  readonly noScripting?: boolean;
}

/**
 * A Transport that records what the master sends and answers when the test says so. Without a
 * `server` the probes (INFO cluster among them) and SCRIPT LOAD a ready master sends at once answer nothing (the member stays
 * on scripts, as before its probe); with one, they answer as that server would, at once.
 */
export class FakeTransport implements Transport {
  readonly name: string = 'fake:1';
  readonly client = {} as never;
  readonly isOpen = true;
  readonly isReady = true;
  readonly sent: { args: readonly string[]; answer: (reply: unknown) => void; fail: (error: Error) => void }[] = [];

  constructor(readonly server?: FakeServer) {}

  send(args: readonly string[]): Promise<unknown> {
    if (args[0] === 'SCRIPT' || args[0] === 'INFO' || args[1] === PROBE_KEY || (args[0] === 'MSETEX' && args[2] === PROBE_KEY)) {
      const server = this.server;
      if (server === undefined) return new Promise(() => undefined);
      return probeReply(server, args);
    }
    return new Promise((resolve, reject) => this.sent.push({ args, answer: resolve, fail: reject }));
  }

  onReady(): () => void {
    return () => undefined;
  }

  onError(): () => void {
    return () => undefined;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  /** Words of each call so far: 'SET', 'SET IFEQ', 'DELIFEQ', 'DELEX'; LEAN_SCRIPT's 'lean', key count and shape; or BATCH_SCRIPT's key count and operation codes. */
  get calls(): string[] {
    return this.sent.map(({ args }) => {
      if (args[0] === 'SET') return args[3] === 'IFEQ' ? 'SET IFEQ' : 'SET';
      if (args[0] === 'DELIFEQ' || args[0] === 'DELEX' || args[0] === 'MSETEX') return args[0];
      if (args[1] === RELEASE_SHA) return 'release';
      const n = Number(args[2]);
      if (args[1] === LEAN_SHA) return `lean ${n}:${args[3 + 2 * n]!}`;
      return `${n}:${args.slice(3 + n).filter((a) => /^[A-Z]\d*$/.test(a)).join(',')}`;
    });
  }
}

/** A FakeTransport that posts its calls as the lean connection does: no promise per command, each reply to a Sink. */
export class PostingFakeTransport extends FakeTransport {
  post(args: readonly string[], sink: Sink, token: unknown): void {
    void this.send(args).then((reply) => { sink.replied(token, reply); }, (error: unknown) => { sink.failed(token, error as Error); });
  }
}

function probeReply(server: FakeServer, args: readonly string[]): Promise<unknown> {
  const unknown = (name: string): Promise<never> => Promise.reject(new Error(`ERR unknown command '${name}', with args beginning with: `));
  switch (args[0]) {
    case 'INFO':
      return Promise.resolve('# Cluster\r\ncluster_enabled:0\r\n');
    case 'SCRIPT':
      if (server.noScripting === true) return Promise.reject(new Error("NOPERM User app has no permissions to run the 'script|load' command"));
      return Promise.resolve(scriptBySource(args[2])?.sha);
    case 'SET':
      return server.setIfEq === true ? Promise.resolve(null) : Promise.reject(new Error('ERR syntax error'));
    case 'DELIFEQ':
      return server.delIfEq === true ? Promise.resolve(0) : unknown('DELIFEQ');
    case 'MSETEX':
      return server.msetex === true ? Promise.resolve(0) : unknown('MSETEX');
    default:
      return server.delEx === true ? Promise.resolve(0) : unknown('DELEX');
  }
}
