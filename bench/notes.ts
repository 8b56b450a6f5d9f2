/**
 * Why a target of bench/report.ts was missed, by target id: written by hand from the run the
 * tables come from (bench/results/peers.json, 2026-11-24) and bench:profile's breakdown, since the
 * JSON holds figures, not reasons. Update with each regeneration that moves them.
 */

/** Keyed by Target.id. */
export const MISSED_TARGET_NOTES: Readonly<Record<string, string>> = {
  'c1-peers':
    'Within the noise, not ahead: at concurrency 1 every contender sends one command per master per step (pipelock: a lone SET NX, then one EVALSHA), so there is little to win. In this run every contender read 2.2k–2.9k cycles/s with min–max spreads of 10–30%, the per-command ceiling itself included; earlier runs had pipelock at 1.07× and 0.96× node-redlock.',
  'c1-latency':
    'Acquire p50 0.17 ms against the per-command ceiling\'s 0.15, release 0.17 against 0.16: both are one command per master (SET NX; EVALSHA), so the ~10–20 µs a step is pipelock\'s own work per operation (validation, a 160-bit token, Attempt, Lock) and the batch script\'s dispatch where the ceiling runs a one-line compare-and-delete.',
  'hot-ceiling':
    'On the hot key almost every attempt is refused (pipelock 33k refusals/s against 868 successes/s); each refusal builds a typed error with per-master outcomes and undoes its partial grants owner-checked, where the ceiling builds nothing and undoes nothing. 23.8 against 12.8 µs of client CPU per attempt.',
  'c512-coalescing':
    'pipelock reached 1.84× the per-command ceiling; the coalesced raw ceiling — the same Redis work batched the same way, with no lock logic — reached 2.50× in the same run, so the transport alone just makes 2.5× on this machine and pipelock\'s lock logic costs the rest: client CPU 15.6 against 9.1 µs and Redis CPU 20.7 against 19.1 µs per cycle. bench:profile (BENCHMARKS.md, last section) puts pipelock\'s own JavaScript at a few % of the sampled client time; the rest is the socket writes (the kernel\'s loopback send, and the masters taking the CPU they wake on), GC, promise machinery and @redis/client.',
  'c64-coalescing':
    'pipelock reached 1.18× (35.5k–46.9k); the coalesced raw ceiling reached 1.36×, itself far short of 1.8× on this machine (5 masters and the client on 2 cores: a cycle\'s Redis CPU, ~20 µs, caps throughput near 50k/s whatever the client does). pipelock costs 13.3 against 11.3 µs of client CPU and 23.6 against 20.3 µs of Redis CPU per cycle.',
};
