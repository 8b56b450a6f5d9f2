/**
 * Why a target of bench/report.ts was missed, by target id: written by hand from the run the
 * tables come from (bench/results/peers.json, 2026-12-01 23:30–23:48, load average 2.3–2.7, nothing
 * else running) and bench:profile's breakdown, since the JSON holds figures, not reasons. Update
 * with each regeneration that moves them.
 */

/** The run the notes were written from, printed above them: when the tables move, the notes may lag. */
export const kNotesFrom = 'written from the run of 2026-12-01 23:30 at 6dc290c, the one in the tables';

/** Keyed by Target.id. */
export const MISSED_TARGET_NOTES: Readonly<Record<string, string>> = {
  'c1-ceiling':
    '0.94× (pairs 0.98, 0.86, 1.02, 0.94, 0.94); the run before (ecce492) read 0.92× and a paired run 1.01–1.03×. Both sides send the same 20 commands per cycle in 2.00 writes per cycle per master, pipelock in fewer reads (1.5–1.7 against 1.8). A cycle is ~160 µs of client CPU, two thirds of it in the kernel (109.7 and 95.9 µs here); bench:profile:c1 put 312 of pipelock\'s 474 µs in socket writes (the ceiling 307 of 442) and the JavaScript difference under 10 µs, so what moves this ratio is the 2 shared cores\' scheduling of six processes, not the client\'s code.',
  'c1-acquire-p50':
    '+11 µs (0.10 against 0.09 ms; per pair +16, +27, −2, +9, +11); the run before read +4 µs. An acquire does what the ceiling\'s does on the wire (5 SET NX PX, answered at the third) and more in the client: a CSPRNG token, monotonic clock reads for the validity, a Lock with per-master outcomes; bench:profile:c1 measured +7 µs of main-thread time per cycle for acquire and release together.',
  'c1-cpu':
    '1.04× (163.2 against 157.4 µs; pairs 1.12, 1.11, 0.95, 1.02, 1.04); the run before read 0.97×. The kernel\'s part moves most (109.7 against 95.9 µs at the medians): the same writes, woken at different moments of the masters\' scheduling (see the concurrency-1 ratio above).',
  'c4-ceiling':
    '1.05× (pairs 1.24, 1.59, 0.95, 0.92, 1.05), with less client CPU per cycle (56.3 against 60.4 µs, about half in the kernel): every contender makes 0.5 writes per cycle per master, so there is almost nothing to coalesce, and the masters spent more (77.1 against 63.4 µs per cycle) running four operations in one script than one SET NX PX and one script call each. 1.4× would need fewer writes per cycle, which only holding flushes gives, at a latency cost decision 0013 measured and declined.',
  'c16-ceiling':
    '1.23× (32,032 against 26,765), level with the coalesced ceiling (1.18×; pipelock to it 1.00× paired) at the same 0.125 writes per cycle per master and 15.6 commands: pipelock costs 20.4 µs of client CPU per cycle against the coalesced ceiling\'s 19.6, so it is at the floor of what batching gives here. 1.7× would need the masters to cost less per cycle (29.9 µs against the per-command ceiling\'s 31.2): on 2 shared cores a cycle\'s ~50 µs of CPU bounds it near 40k/s.',
  'c64-ceiling':
    '1.68× (52,821 against 34,811; pairs 1.52, 1.70, 1.68), above the coalesced raw ceiling (1.49×; pipelock to it 1.12× paired): the same Redis work batched the same way, with no lock logic. pipelock costs 11.8 µs of client CPU and 20.1 µs of Redis CPU per cycle against the coalesced ceiling\'s 10.7 and 21.5; with 5 masters and the client on 2 cores, a cycle\'s ~32 µs of CPU caps throughput near 62k/s whatever the client does. On Redis 7 the masters run a script per tick; on Valkey 9.1 the same cycle goes script-free at 2.07× the ceiling.',
  'hot-refusals':
    'Redis commands per attempt are below the ceiling\'s (7.64 against 9.18: foreign-key reads are rationed to one per second), client CPU is not (21.4 against 13.6 µs): a refusal builds a typed error with per-master outcomes and undoes its partial grants owner-checked, where the ceiling builds nothing. Successes are 1.66× the ceiling\'s.',
  'valkey64-ceiling':
    'Met in the run of 2026-12-01 23:30 (2.07×; pairs 2.29, 2.07, 2.07, at 0.50× the ceiling\'s client CPU); the run before at ecce492 read 1.96×. A cycle is 10 native commands (5 SET NX PX, 5 DELIFEQ), the fewest the algorithm needs, and 11.4 + 12.4 µs of CPU on 2 shared cores: a miss here is the machine\'s spread (1.83 to 2.29 per pair in the run before).',
};

/** What the election failover figures (bench/results/election.json) show, and what ran beside them. */
export const ELECTION_NOTE =
  'From the run of 2026-11-27 05:33 UTC, alone on the machine (load 0.25 at the start), after campaigns went in turn at the gate from their first attempt (every attempt to the gate master first, for arrival order across processes): crash p50 802 ms and resign p50 5.8 ms, as in the run before that change (02:34, crash p50 802, after the lease 18.9, resign 5.8; resign p99 31.7 then, 14.5 now). An earlier run at 01:56 beside other work (load 7.4) read crash p50 803 ms and resign p50 6.6 ms: the failover figures are set by the lease, not by CPU. ' +
  'A crash costs the lease its leader had left (here ~780 ms of the 1,000 ms lease, the leader dying 200 ms after it led) plus 15–30 ms (p50 18.5 after the lease): the drift allowance (a lease\'s validity is the TTL less elapsed time less 1% + 2 ms, so the keys outlive it by ~12 ms) and the wake-up, which is not the retry period (133 ms): a waiting campaigner sleeps until the moment the holder\'s keys will have expired, and the keys\' expiry also reaches it as a client-tracking invalidation (src/waiting/). ' +
  'A resign costs a few round trips on local masters (median 5.8 ms): the leader record erased and the lock released, the first campaigner in the gate\'s line woken by the release, then its own lock (at the gate master first), term and record.';
