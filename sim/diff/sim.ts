/** The simulated side of the differential: a fresh SimMaster whose clock is set from the real server's. */
import { SimMaster, type KeyDump, type SimConnection } from '../master/index.js';
import { normalize, type Normal } from './compare.js';
import { kWatches, type Conn, type Step } from './steps.js';

export class SimSide {
  readonly pushes: Record<(typeof kWatches)[number], (string | null)[]> = { w0: [], w1: [] };
  readonly master: SimMaster;
  readonly #conns: Record<Conn, SimConnection>;
  #nowMs = 0;

  constructor() {
    this.master = new SimMaster({ now: () => this.#nowMs });
    const master = this.master;
    this.#conns = { main: master.connect(), foreign: master.connect(), w0: master.connect(), w1: master.connect() };
    for (const name of kWatches) {
      const conn = this.#conns[name];
      conn.onPush = (push) => {
        this.pushes[name].push(push[1] === null ? null : push[1][0]);
      };
      // What @redis/client's emitInvalidate sends at connect.
      conn.exec(['CLIENT', 'TRACKING', 'on']);
    }
  }

  /** Sets the master's clock (µs on the real server's clock). */
  setClock(us: number): void {
    this.#nowMs = us / 1000;
  }

  run(step: Step): Normal {
    switch (step.kind) {
      case 'cmd':
        return normalize(this.#conns[step.conn].exec(step.args));
      case 'flush':
        this.master.flushAll();
        return 'OK';
      case 'plant':
        this.master.seed(step.key, step.value);
        return null;
      default:
        throw new Error('a sleep step is not run on a side');
    }
  }

  dump(): KeyDump[] {
    return this.master.dump();
  }
}
