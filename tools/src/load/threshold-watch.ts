import type { LiveSample } from './live-totals.js';
import type { RunResult, ThresholdVerdict } from './result.js';
import { judge, judgeResult, withDefaults, type Threshold } from './thresholds.js';

export interface WatchOptions {
  readonly thresholds: readonly Threshold[];
  readonly abortOnFail: boolean;
  readonly abortGraceMs: number;
}

/**
 * Judges the thresholds on each measured second's running totals, remembers the first second each
 * failed, and with abortOnFail stops the run (k6's abortOnFail, with delayAbortEval as the grace);
 * the verdict that counts is the one over the whole window, at the end.
 */
export class ThresholdWatch {
  readonly #rules: readonly Threshold[];
  readonly #options: WatchOptions;
  readonly #abort: (rule: string) => void;
  readonly #failedSecond = new Map<string, number>();
  #abortedBy: string | undefined;

  constructor(options: WatchOptions, abort: (rule: string) => void) {
    this.#rules = withDefaults(options.thresholds);
    this.#options = options;
    this.#abort = abort;
  }

  get abortedBy(): string | undefined {
    return this.#abortedBy;
  }

  onSecond(sample: LiveSample): void {
    const measured = sample.measured;
    if (measured === undefined) return;
    for (const verdict of judge(this.#rules, measured)) {
      // No data yet (no latency recorded, nothing due) is not a failure while the run lasts.
      if (verdict.ok || verdict.value === null) continue;
      if (!this.#failedSecond.has(verdict.rule)) this.#failedSecond.set(verdict.rule, measured.seconds);
      if (this.#options.abortOnFail && this.#abortedBy === undefined && measured.seconds * 1000 > this.#options.abortGraceMs) {
        this.#abortedBy = verdict.rule;
        this.#abort(verdict.rule);
      }
    }
  }

  /** The verdicts over the whole run, each with the first second that failed it live. */
  final(result: RunResult): ThresholdVerdict[] {
    return judgeResult(this.#rules, result).map((v) => {
      const second = this.#failedSecond.get(v.rule);
      return second === undefined ? v : { ...v, failedSecond: second };
    });
  }
}
