import type { LiveSample } from '../load/runner.js';

const kPlainEverySeconds = 5;

/**
 * The live line: rewritten in place each second on a TTY; without one, a plain line every
 * few seconds (logs and CI stay short). Both go to stderr, keeping stdout for the result.
 */
export function liveReporter(stream: NodeJS.WriteStream = process.stderr): { onSecond: (sample: LiveSample) => void; end: () => void } {
  const tty = stream.isTTY;
  let shown = false;
  return {
    onSecond(sample) {
      const line = `${String(sample.second).padStart(4)}s ${sample.warmup ? 'warm-up ' : 'measure '}` +
        `${String(sample.cycles).padStart(8)} cycles/s  acquire p50 ${sample.p50} µs p99 ${sample.p99} µs  errors ${sample.errors}/s `
          + `(${sample.totalErrors} total)` +
        (sample.measured?.due === undefined ? '' : `  late starts ${sample.lateStarts}/s`);
      if (tty) {
        stream.write(`\r\x1b[2K${line}`);
        shown = true;
      } else if (sample.second % kPlainEverySeconds === 0) {
        stream.write(`${line}\n`);
      }
    },
    end() {
      if (shown) stream.write('\n');
      shown = false;
    },
  };
}
