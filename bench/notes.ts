/**
 * Why a target of bench/report.ts was missed, by target id: written by hand from the run the
 * tables come from (bench/results/peers.json, 2026-11-24, second run) and bench:profile's breakdown, since the
 * JSON holds figures, not reasons. Update with each regeneration that moves them.
 */

/** Keyed by Target.id. */
export const MISSED_TARGET_NOTES: Readonly<Record<string, string>> = {
  'c1-peers':
    'Within the noise, not ahead: at concurrency 1 every contender sends one command per master per step (pipelock: a lone SET NX, then one EVALSHA), so there is little to win. In this run every contender read 2.2k–2.9k cycles/s with min–max spreads of 10–30%, the per-command ceiling itself included; earlier runs had pipelock at 1.07× and 0.96× node-redlock.',
  'c1-latency':
    'Acquire p50 0.24 ms against the per-command ceiling\'s 0.20, release 0.26 against 0.21 (this run, load average 6–9: helpers were running tests beside it): both are one command per master (SET NX; one script call), so the gap is pipelock\'s own work per operation (validation, a 160-bit token, Attempt, Lock) and the script\'s dispatch where the ceiling runs a one-line compare-and-delete.',
  'hot-ceiling':
    'On the hot key almost every attempt is refused (pipelock 23.7k refusals/s against 641 successes/s); each refusal builds a typed error with per-master outcomes and undoes its partial grants owner-checked, where the ceiling builds nothing and undoes nothing: 32.0 against 22.9 µs of client CPU per attempt. Waiting callers are not in this configuration (retryCount 0).',
  'c512-coalescing':
    'pipelock reached 1.30× the per-command ceiling (over ioredis 1.59×); the coalesced raw ceiling — the same Redis work batched the same way, with no lock logic — reached 2.05× in the same run. This run was made with load average 6–9 (helpers running tests beside it), which spreads every figure; the quieter run of the previous stop read 1.84× against 2.50×. pipelock costs 19.5 µs of client CPU per cycle against the coalesced ceiling\'s 11.0, and 18.0 against 18.2 µs of Redis CPU: the lean script (src/lean-script.ts) brought the Redis side level with the ceiling; the client side is socket writes, GC, promise machinery and @redis/client (bench:profile, last section).',
  'c64-coalescing':
    'pipelock reached 1.39× (30.2k–42.6k), level with the coalesced raw ceiling (1.40×), itself far short of 1.8× on this machine: 5 masters and the client share 2 cores, and a cycle\'s Redis CPU (~20 µs) caps throughput near 50k/s whatever the client does. pipelock costs 16.0 µs of client CPU and 20.1 µs of Redis CPU per cycle against the per-command ceiling\'s 24.6 and 24.2 (load average 6–9 during this run).',
};
