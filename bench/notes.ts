/**
 * Why a target of bench/report.ts was missed, by target id: written by hand from the run the
 * tables come from (bench/results/peers.json, 2026-12-01 06:49–07:06, load average 1.9–3.3, nothing
 * else running) and bench:profile's breakdown, since the JSON holds figures, not reasons. Update
 * with each regeneration that moves them.
 */

/** The run the notes were written from, printed above them: when the tables move, the notes may lag. */
export const kNotesFrom = 'written from the run of 2026-12-01 at ecce492, the one in the tables';

/** Keyed by Target.id. */
export const MISSED_TARGET_NOTES: Readonly<Record<string, string>> = {
  'c1-ceiling':
    'Within the spread: the five paired ratios read 0.83, 1.46, 0.92, 0.81 and 1.05 (median 0.92×); a paired run the same morning read 1.03× (decision 0010, "The kept encoding"). Both sides send the same 20 commands per cycle and pipelock spends less client CPU (173.7 against 180.0 µs per cycle, 0.97×); a cycle here is ~250 µs, most of it the masters\' wake-ups on 2 shared cores, which move a 3 s window by ±20 %.',
  'c4-ceiling':
    '1.04×, with less client CPU per cycle (63.6 against 77.8 µs, of which 32.5 and 33.7 in the kernel): at 4 in flight a flush carries ~1 operation per master (17.5 Redis commands per cycle against 20) and every contender makes the same 0.5 writes per cycle per master, so there is almost nothing to coalesce; half the client\'s cost is the kernel\'s send. 1.4× would need fewer writes per cycle, which only holding flushes gives, at a latency cost decision 0013 measured and declined.',
  'c16-ceiling':
    '1.30× (26,125 against 21,382), level with the coalesced ceiling (25,760, 1.23×) at the same 0.125 writes per cycle per master and 15.6 commands: pipelock costs 22.8 µs of client CPU per cycle against the coalesced ceiling\'s 23.2, so it is at the floor of what batching gives here. 1.7× would need the masters to cost less per cycle (38.3 µs against the per-command ceiling\'s 40.8): on 2 shared cores a cycle\'s ~61 µs of CPU bounds it near 33k/s.',
  'c64-ceiling':
    '1.60× (54,976 against 34,985), above the coalesced raw ceiling (53,901, 1.54×): the same Redis work batched the same way, with no lock logic. pipelock costs 11.6 µs of client CPU and 19.8 µs of Redis CPU per cycle against the coalesced ceiling\'s 10.1 and 21.1; with 5 masters and the client on 2 cores, a cycle\'s ~31 µs of CPU caps throughput near 64k/s whatever the client does. On Redis 7 the masters run a script per tick; on Valkey 9.1 the same cycle goes script-free at 1.96× the ceiling.',
  'hot-refusals':
    'Redis commands per attempt are below the ceiling\'s (7.64 against 9.18: foreign-key reads are rationed to one per second), client CPU is not (24.1 against 13.2 µs): a refusal builds a typed error with per-master outcomes and undoes its partial grants owner-checked, where the ceiling builds nothing. Successes are 1.24× the ceiling\'s.',
  'valkey64-ceiling':
    '1.96× the per-command ceiling (53,576 against 28,524; per pair 1.96, 1.83 and 2.29), at 0.53× its client CPU and 0.48× its masters\' CPU per cycle: a cycle is 10 native commands (5 SET NX PX, 5 DELIFEQ), the fewest the algorithm needs, and 13.6 + 16.2 µs of CPU on 2 shared cores. The lean connection\'s kept encodings leaving a WeakMap (decision 0010) moved this from 1.70× to 1.81× in a paired run; 2× needs the client\'s ~0.2 µs per reply (a string per +OK from the parser, a slot in the reply ring) or the kernel\'s send to cost less.',
};

/** What the election failover figures (bench/results/election.json) show, and what ran beside them. */
export const ELECTION_NOTE =
  'From the run of 2026-11-27 05:33 UTC, alone on the machine (load 0.25 at the start), after campaigns went in turn at the gate from their first attempt (every attempt to the gate master first, for arrival order across processes): crash p50 802 ms and resign p50 5.8 ms, as in the run before that change (02:34, crash p50 802, after the lease 18.9, resign 5.8; resign p99 31.7 then, 14.5 now). An earlier run at 01:56 beside other work (load 7.4) read crash p50 803 ms and resign p50 6.6 ms: the failover figures are set by the lease, not by CPU. ' +
  'A crash costs the lease its leader had left (here ~780 ms of the 1,000 ms lease, the leader dying 200 ms after it led) plus 15–30 ms (p50 18.5 after the lease): the drift allowance (a lease\'s validity is the TTL less elapsed time less 1% + 2 ms, so the keys outlive it by ~12 ms) and the wake-up, which is not the retry period (133 ms): a waiting campaigner sleeps until the moment the holder\'s keys will have expired, and the keys\' expiry also reaches it as a client-tracking invalidation (src/waiting/). ' +
  'A resign costs a few round trips on local masters (median 5.8 ms): the leader record erased and the lock released, the first campaigner in the gate\'s line woken by the release, then its own lock (at the gate master first), term and record.';
