import { InvalidArgumentError } from '../../errors.js';
import { isObject } from '../../util/checks.js';
import { kMaxTimerMs } from '../../util/alarm.js';

/** The timing of an election (client-go leaderelection's three, adapted to pipelock's renewal). */
export interface ElectionOptions {
  /** The leader's lease in ms: how long its keys live on the masters after its last renewal. @default 15000 */
  readonly lease?: number;
  /**
   * The leader starts renewing at least this long before its lease ends, and keeps retrying every
   * `retryPeriod` until it runs out; then it steps down (its term's signal aborts). At most lease / 2:
   * pipelock renews no earlier than halfway through a lease. @default lease / 3
   */
  readonly renewDeadline?: number;
  /** Delay between a campaigner's tries, a leader's renewal retries and observe()'s reads. @default renewDeadline / 2.5 */
  readonly retryPeriod?: number;
}

/** The options with nothing optional, checked once. */
export interface ResolvedElectionOptions {
  /** The leader's lease in ms. */
  readonly lease: number;
  /** How long before its lease ends the leader starts renewing, in ms. */
  readonly renewDeadline: number;
  /** Delay between tries, renewal retries and observe()'s reads, in ms. */
  readonly retryPeriod: number;
}

/** client-go's JitterFactor: a renew deadline must leave room for a retry period and its jitter. */
export const kJitterFactor = 1.2;

function ms(name: string, value: unknown): number {
  if (!Number.isSafeInteger(value) || (value as number) < 1 || (value as number) > kMaxTimerMs)
    throw new InvalidArgumentError(name, `must be an integer number of ms from 1 to ${kMaxTimerMs}`, value);
  return value as number;
}

/** Checks the options against the rule lease ≥ 2 × renewDeadline, renewDeadline > 1.2 × retryPeriod. */
export function resolveElectionOptions(options: unknown): ResolvedElectionOptions {
  if (options !== undefined && !isObject(options)) throw new InvalidArgumentError('options', 'must be an object', options);
  const given = (options ?? {}) as ElectionOptions;
  const lease = given.lease === undefined ? 15_000 : ms('options.lease', given.lease);
  const renewDeadline = given.renewDeadline === undefined ? Math.floor(lease / 3) : ms('options.renewDeadline', given.renewDeadline);
  const retryPeriod = given.retryPeriod === undefined ? Math.floor(renewDeadline / 2.5) : ms('options.retryPeriod', given.retryPeriod);
  if (renewDeadline > lease / 2) {
    throw new InvalidArgumentError('options.renewDeadline',
      `must be at most lease / 2 (${lease / 2} ms): lease ≥ 2 × renewDeadline, since pipelock renews no earlier than halfway `
        + `through the lease`, renewDeadline);
  }
  if (renewDeadline <= kJitterFactor * retryPeriod) {
    const name = given.renewDeadline === undefined && given.retryPeriod !== undefined ? 'options.retryPeriod' : 'options.renewDeadline';
    throw new InvalidArgumentError(name,
      `breaks renewDeadline > ${kJitterFactor} × retryPeriod (${renewDeadline} ms against ${kJitterFactor} × ${retryPeriod} ms): a failed `
        + `renewal must have time to be retried before the lease runs out`, name === 'options.retryPeriod' ? retryPeriod : renewDeadline);
  }
  return Object.freeze({ lease, renewDeadline, retryPeriod });
}
