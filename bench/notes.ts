/**
 * Why a target of bench/report.ts was missed, by target id: written by hand from the run the
 * tables come from (bench/results/peers.json, 2026-11-24 05:53, load average 1.8–3.5) and bench:profile's breakdown, since the
 * JSON holds figures, not reasons. Update with each regeneration that moves them.
 */

/** Keyed by Target.id. */
export const MISSED_TARGET_NOTES: Readonly<Record<string, string>> = {
  'c1-peers':
    'Within the noise, not ahead: at concurrency 1 every contender sends one command per master per step (pipelock: a lone SET NX, then one EVALSHA), so there is little to win. In this run every contender read 2.0k–3.1k cycles/s with min–max spreads of 10–40%, the per-command ceiling itself included (3,056); pipelock read 2,239, 0.92× node-redlock v5 and 1.08× redis-semaphore; earlier runs had it at 1.07× and 0.96× node-redlock.',
  'c1-latency':
    'Acquire p50 0.20 ms against the per-command ceiling\'s 0.14, release 0.20 against 0.14 (this run): both are one command per master (SET NX; one script call), so the gap is pipelock\'s own work per operation (validation, a 160-bit token, Attempt, Lock) and the script\'s dispatch where the ceiling runs a one-line compare-and-delete.',
  'hot-ceiling':
    'On the hot key almost every attempt is refused (pipelock 38.3k refusals/s against 967 successes/s); each refusal builds a typed error with per-master outcomes and undoes its partial grants owner-checked, where the ceiling builds nothing and undoes nothing: 21.4 against 13.8 µs of client CPU per attempt. Waiting callers are not in this configuration (retryCount 0).',
  'c512-coalescing':
    'pipelock reached 1.82× the per-command ceiling (over ioredis 1.60×); the coalesced raw ceiling — the same Redis work batched the same way, with no lock logic — reached 2.37× in the same run, so lock logic costs a quarter of the throughput here. pipelock costs 12.5 µs of client CPU per cycle against the coalesced ceiling\'s 7.7, and 13.9 against 14.4 µs of Redis CPU: the Redis side is at the batched floor, the client side is what is left (tokens, Attempt, Lock, validity, promises; see the profile section).',
  'c64-coalescing':
    'pipelock reached 1.35× (52.7k–54.4k), above the coalesced raw ceiling (1.30×), itself far short of 1.8× on this machine: 5 masters and the client share 2 cores, and a cycle\'s Redis CPU (~18 µs) caps throughput near 55k/s whatever the client does. pipelock costs 11.8 µs of client CPU and 17.9 µs of Redis CPU per cycle against the per-command ceiling\'s 20.7 and 19.7.',
};
