/**
 * Why a target of bench/report.ts was missed, by target id: written by hand from the run the
 * tables come from (bench/results/peers.json, 2026-12-02 00:26–00:45, load average 2.9–3.1, nothing
 * else running) and bench:profile's breakdown, since the JSON holds figures, not reasons. Update
 * with each regeneration that moves them.
 */

/** The run the notes were written from, printed above them: when the tables move, the notes may lag. */
export const kNotesFrom = 'written from the run of 2026-12-02 00:26 at 6be9809, the one in the tables';

/** Keyed by Target.id. */
export const MISSED_TARGET_NOTES: Readonly<Record<string, string>> = {
  'c1-ceiling':
    'Within the spread: 0.99× here (pairs 0.79, 1.45, 1.05, 0.80, 0.99), 0.94× at 6dc290c and 0.92× at ecce492. Both sides send the same 20 commands per cycle in 2.00 writes per cycle per master, pipelock in fewer reads (1.5–1.7 against 1.8). A cycle is ~160–220 µs of client CPU, about two thirds of it in the kernel; bench:profile:c1 put 312 of pipelock\'s 474 µs in socket writes (the ceiling 307 of 442) and the JavaScript difference under 10 µs, so what moves this ratio is the 2 shared cores\' scheduling of six processes, not the client\'s code.',
  'c1-acquire-p50':
    '−5 µs here; +11 µs at 6dc290c (per pair +16, +27, −2, +9, +11) and +4 µs at ecce492. An acquire does what the ceiling\'s does on the wire (5 SET NX PX, answered at the third) and more in the client: a CSPRNG token, monotonic clock reads for the validity, a Lock with per-master outcomes; bench:profile:c1 measured +7 µs of main-thread time per cycle for acquire and release together.',
  'c1-cpu':
    '0.89× here (pairs 1.21, 0.73, 0.89, 1.14, 0.95), 1.04× at 6dc290c, 0.97× at ecce492: the kernel\'s part moves most, the same writes woken at different moments of the masters\' scheduling (see the concurrency-1 ratio).',
  'c4-ceiling':
    '1.01× (pairs 1.01, 1.10, 0.80, 1.07, 0.67; the fifth disturbed: pipelock read 5,819 cycles/s against 9,621–11,362 in the others), 1.05× at 6dc290c and 1.22× in the paired run of decision 0007 "Redis 7 too". Every contender makes 0.5 writes per cycle per master, so there is almost nothing to coalesce: at 4 in flight a flush carries about one operation per master. Since acquisitions go natively on Redis 7 the masters spend what the ceiling\'s do (76.6 against 75.3 and 77.9 against 80.5 µs in the first two pairs; 77.1 against 63.4 before), and the client less (63.0 against 68.3). 1.4× would need fewer writes per cycle, which only holding flushes gives, at a latency cost decision 0013 measured and declined.',
  'c16-ceiling':
    '1.49× (pairs 1.49, 1.60, 1.28, 1.28, 2.44; 1.23× at 6dc290c), 1.29× the coalesced ceiling paired, at the same 0.125 writes per cycle per master: pipelock costs 26.9 µs of client CPU and 35.4 µs of the masters\' per cycle against the per-command ceiling\'s 41.7 and 43.6. On 2 shared cores the ratio is bounded by a cycle\'s CPU, 62 against 85 µs here (1.37×, with the ceiling not quite CPU-bound); 1.7× needs a cycle under ~50 µs of CPU.',
  'c64-ceiling':
    '1.69× (pairs 0.98, 2.20, 1.69; the first disturbed), 1.14× the coalesced raw ceiling paired (the same batching with no lock logic, which read 1.49× the per-command ceiling). pipelock costs 15.5 µs of client CPU and 21.2 µs of the masters\' per cycle against the per-command ceiling\'s 29.7 and 30.4; with 5 masters and the client on 2 cores a cycle\'s CPU bounds the ratio near 60.1 ÷ 36.7 = 1.64×. Where the masters have cores of their own, the bound is the client\'s CPU alone (0.52×, so ~1.9×). On Valkey 9.1 the same cycle goes script-free at 2.35× the ceiling.',
  'c512-ceiling':
    '2.17× (pairs 2.14, 2.17, 2.88); 2.67× at 6dc290c and 2.70× at ecce492. This run\'s machine was slower for every contender (the per-command ceiling 21,477 cycles/s against 29,349 at 6dc290c; pipelock\'s client 15.7 µs per cycle against 8.3). pipelock is level with the coalesced raw ceiling (1.01× paired); a cycle costs it 15.7 + 19.0 µs of CPU against the per-command ceiling\'s 49.7 + 26.1, which on 2 shared cores bounds the ratio near 2.2×. In the paired run of decision 0007 "Redis 7 too" this read 2.30× after the change and 2.30× before it.',
  'hot-refusals':
    'Redis commands per attempt are below the ceiling\'s (7.58 against 9.18: foreign-key reads are rationed to one per second), client CPU is not (26.4 against 21.2 µs): a refusal builds a typed error with per-master outcomes and undoes its partial grants owner-checked, where the ceiling builds nothing. Successes are 1.97× the ceiling\'s.',
  'valkey64-ceiling':
    'Met here (2.35×; pairs 2.35, 2.54, 1.70) and at 6dc290c (2.07×); 1.96× at ecce492. A cycle is 10 native commands (5 SET NX PX, 5 DELIFEQ), the fewest the algorithm needs: a miss here is the machine\'s spread.',
};

/** What the election failover figures (bench/results/election.json) show, and what ran beside them. */
export const ELECTION_NOTE =
  'From the run of 2026-11-27 05:33 UTC, alone on the machine (load 0.25 at the start), after campaigns went in turn at the gate from their first attempt (every attempt to the gate master first, for arrival order across processes): crash p50 802 ms and resign p50 5.8 ms, as in the run before that change (02:34, crash p50 802, after the lease 18.9, resign 5.8; resign p99 31.7 then, 14.5 now). An earlier run at 01:56 beside other work (load 7.4) read crash p50 803 ms and resign p50 6.6 ms: the failover figures are set by the lease, not by CPU. ' +
  'A crash costs the lease its leader had left (here ~780 ms of the 1,000 ms lease, the leader dying 200 ms after it led) plus 15–30 ms (p50 18.5 after the lease): the drift allowance (a lease\'s validity is the TTL less elapsed time less 1% + 2 ms, so the keys outlive it by ~12 ms) and the wake-up, which is not the retry period (133 ms): a waiting campaigner sleeps until the moment the holder\'s keys will have expired, and the keys\' expiry also reaches it as a client-tracking invalidation (src/waiting/). ' +
  'A resign costs a few round trips on local masters (median 5.8 ms): the leader record erased and the lock released, the first campaigner in the gate\'s line woken by the release, then its own lock (at the gate master first), term and record.';
