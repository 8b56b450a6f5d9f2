/**
 * Why a target of bench/report.ts was missed, by target id: written by hand from the run the
 * tables come from (bench/results/peers.json, 2026-11-26 23:04–23:20, load average 1.1–2.5, nothing
 * else running) and bench:profile's breakdown, since the JSON holds figures, not reasons. Update
 * with each regeneration that moves them.
 */

/** The run the notes were written from, printed above them: when the tables move, the notes may lag. */
export const kNotesFrom = 'written from the run of 2026-11-26 at bb499cd, before the lean connection (decision 0010); the figures in them are that run\'s, not the table\'s above, where they differ';

/** Keyed by Target.id. */
export const MISSED_TARGET_NOTES: Readonly<Record<string, string>> = {
  'c1-ceiling':
    'Within the spread, a hair under: 0.96× the per-command ceiling (1,951 against 1,804 cycles/s by medians, but the median of paired ratios is 0.96×), with less client CPU (413.7 against 421.6 µs per cycle) and less Redis CPU (392 against 419). This machine spends 188 µs of pipelock\'s cycle in the kernel (the whole cycle cost 261.6 µs of client CPU in the 2026-11-24 run on another machine of this kind), so both sides are bound by the same 20 commands per cycle and the paired ratios move by ±10% between repetitions.',
  'c4-ceiling':
    'At 4 in flight pipelock (5,032 cycles/s), the coalesced ceiling (5,313) and the per-command ceiling (5,644) are level: a flush at this depth carries ~1 operation per master (17.5 Redis commands per cycle against 20 for the per-command ceiling), so there is almost nothing to coalesce, and on this VM each cycle costs ~138 µs of client CPU of which 60 in the kernel, for the socket writes every contender makes. The 1.24× the issue measured came from a machine where a cycle cost far less; what would reach 1.4× is fewer writes per cycle, i.e. gathering across a few microtasks at the cost of the latency at concurrency 1.',
  'c16-ceiling':
    '1.29× (15,114 against 11,716), ahead of the coalesced ceiling (1.20×): pipelock is at the batched floor of what @redis/client can do here, 46.7 µs of client CPU per cycle (15.4 in the kernel) against the coalesced ceiling\'s 45.0. 1.7× would need the client to cost less per coalesced call than the raw client does.',
  'c64-ceiling':
    '1.48×, above the coalesced raw ceiling (1.40×): the same Redis work batched the same way, with no lock logic. pipelock costs 23.4 µs of client CPU and 37.9 µs of Redis CPU per cycle against the coalesced ceiling\'s 21.6 and 42.6; 5 masters and the client share 2 cores, and a cycle\'s ~61 µs of CPU caps throughput near 33k/s whatever the client does.',
  'c512-ceiling':
    '2.15× against the coalesced ceiling\'s 2.49× in the same run: pipelock costs 22.2 µs of client CPU per cycle against 15.9 for the ceiling that only batches SET NX and a compare-and-delete (the lock\'s own work: validation, token, Attempt, Lock, admission window, typed results). Redis CPU is level (33.0 against 34.1).',
  'hot-ceiling':
    'On the hot key almost every attempt is refused (pipelock 16.9k refusals/s against 447 successes/s; the per-command ceiling 30.5k and 493); each refusal builds a typed error with per-master outcomes and undoes its partial grants owner-checked, where the ceiling builds nothing: 51.2 against 29.9 µs of client CPU per attempt. Successes are 0.91× the ceiling\'s. Waiting callers are not in this configuration (retryCount 0); with them, see the Contended section.',
  'hot-refusals':
    'Redis commands per attempt are below the ceiling\'s (7.49 against 9.18: foreign-key reads are rationed to one per second), client CPU is not (51.2 against 29.9 µs): the refusal\'s typed error and the owner-checked undo of its partial grants are the difference.',
  'valkey64-server-cpu':
    'The choice per flush measured both ways in this run: natively (commands: \'native\') the masters spend 30.4 µs per cycle against 47.4 by script (0.64×, 0.54× the per-command ceiling\'s 56.8), but the client spends 50.2 against 25.0 µs (one @redis/client command, promise and reply per operation per master against one script call per tick), and with client and masters on 2 shared cores throughput falls to 0.79×. pipelock\'s own choice (native releases and extends, acquisitions by script) sits between: 41.3 µs (0.87×) at 37.6 µs of client CPU. On a deployment where the masters serve a fleet on their own cores, the native figure is the one that bounds the fleet; reaching both targets at once needs a cheaper per-command path in the client (a tick\'s native commands written and parsed as one pipeline without a promise each), which @redis/client does not offer.',
  'valkey64-ceiling':
    '1.18× the per-command ceiling (19,668 against 16,058; by script 1.39×): see the server-CPU note: on this machine the client\'s per-command cost of the native path takes the throughput the masters save.',
  'valkey-vs-scripts':
    '1.04× at concurrency 1 (native: 412.7 against 501.2 µs of Redis CPU per cycle, 10 commands against 20), 1.02× at 512 (past 256 operations out, flushes go by script), 0.85× at 64, where native releases cost the client 12.6 µs per cycle more than they save the masters (6.1 µs) on 2 shared cores (decision 0007).',
};

/** What the election failover figures (bench/results/election.json) show, and what ran beside them. */
export const ELECTION_NOTE =
  'From the run of 2026-11-27 05:33 UTC, alone on the machine (load 0.25 at the start), after campaigns went in turn at the gate from their first attempt (every attempt to the gate master first, for arrival order across processes): crash p50 802 ms and resign p50 5.8 ms, as in the run before that change (02:34, crash p50 802, after the lease 18.9, resign 5.8; resign p99 31.7 then, 14.5 now). An earlier run at 01:56 beside other work (load 7.4) read crash p50 803 ms and resign p50 6.6 ms: the failover figures are set by the lease, not by CPU. ' +
  'A crash costs the lease its leader had left (here ~780 ms of the 1,000 ms lease, the leader dying 200 ms after it led) plus 15–30 ms (p50 18.5 after the lease): the drift allowance (a lease\'s validity is the TTL less elapsed time less 1% + 2 ms, so the keys outlive it by ~12 ms) and the wake-up, which is not the retry period (133 ms): a waiting campaigner sleeps until the moment the holder\'s keys will have expired, and the keys\' expiry also reaches it as a client-tracking invalidation (src/waiting/). ' +
  'A resign costs a few round trips on local masters (median 5.8 ms): the leader record erased and the lock released, the first campaigner in the gate\'s line woken by the release, then its own lock (at the gate master first), term and record.';
