import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Alarm, kMaxTimerMs } from '../../src/util/alarm.js';
import { retryWait } from '../../src/engine/schedule.js';

const test = suite('alarm');

test('an instant past the longest timer waits, instead of ringing every millisecond', async () => {
  const warnings: string[] = [];
  const onWarning = (warning: Error): void => {
    warnings.push(warning.name);
  };
  process.on('warning', onWarning);
  let rings = 0;
  const alarm = new Alarm(() => {
    rings++;
  });
  try {
    alarm.set(performance.now() + 2 ** 32); // a lock of ~50 days
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.is(rings, 0);
    assert.equal(warnings, []);
  } finally {
    alarm.cancel();
    process.off('warning', onWarning);
  }
});

test('retryWait never exceeds the longest timer', () => {
  for (let i = 0; i < 100; i++) assert.ok(retryWait(kMaxTimerMs, kMaxTimerMs) <= kMaxTimerMs);
});

test.run();
