/**
 * Why a target of bench/report.ts was missed, by target id: written by hand from the run the
 * tables come from (bench/results/peers.json, 2026-11-24 08:06, load average 2.3–3.1) and bench:profile's breakdown, since the
 * JSON holds figures, not reasons. Update with each regeneration that moves them.
 */

/** Keyed by Target.id. */
export const MISSED_TARGET_NOTES: Readonly<Record<string, string>> = {
  'c1-peers':
    'Within the noise, not ahead: at concurrency 1 every contender sends one command per master per step (pipelock: a lone SET NX, then one EVALSHA), so there is little to win. In this run pipelock read 3,253 cycles/s: 1.01× node-redlock v5, 1.15× @sesamecare-oss/redlock and 0.96× redis-semaphore, with min–max spreads of 1–10% per contender; the previous run had 0.92× and 1.08×.',
  'c1-latency':
    'Acquire p50 0.16 ms against the per-command ceiling\'s 0.11, release 0.14 against 0.12 (this run): both are one command per master (SET NX; one script call), so the gap is pipelock\'s own work per operation (validation, a 160-bit token, Attempt, Lock) and the script\'s dispatch where the ceiling runs a one-line compare-and-delete.',
  'hot-ceiling':
    'On the hot key almost every attempt is refused (pipelock 32.6k refusals/s against 862 successes/s); each refusal builds a typed error with per-master outcomes and undoes its partial grants owner-checked, where the ceiling builds nothing and undoes nothing: 25.6 against 14.7 µs of client CPU per attempt. Waiting callers are not in this configuration (retryCount 0); with them, see the Contended section.',
  'c512-coalescing':
    'pipelock reached 2.18× the per-command ceiling, above the coalesced raw ceiling (1.94×) — the same Redis work batched the same way, with no lock logic — in the same run. pipelock costs 12.6 µs of client CPU per cycle (1.0 of it in the kernel) against the coalesced ceiling\'s 9.5, and 19.1 against 21.6 µs of Redis CPU. The Redis side is at the batched floor of owner-checked scripts on Redis 7.0 (see the profile section); the client side at @redis/client\'s own cost per coalesced operation: even the ceiling, with no lock logic at all, spends ~10 µs a cycle.',
  'c64-coalescing':
    'pipelock reached 1.46× (41.6k–50.2k), level with the coalesced raw ceiling (1.46×), itself far short of 1.8× on this machine: 5 masters and the client share 2 cores, and a cycle\'s Redis CPU (~22 µs this run) caps throughput near 50k/s whatever the client does. pipelock costs 12.3 µs of client CPU (2.5 in the kernel) and 21.7 µs of Redis CPU per cycle, against the per-command ceiling\'s 26.8 and 28.1 and the coalesced ceiling\'s 12.1 and 24.8.',
};
