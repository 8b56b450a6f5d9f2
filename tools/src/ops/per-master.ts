import type { MasterFacts } from './facts.js';
import type { Finding } from './finding.js';

/** Whether a URL names a Redis Cluster (`redis+cluster://`, `rediss+cluster://`). */
export function namesCluster(url: string): boolean {
  return /^rediss?\+cluster:/.test(url);
}

/** The checks of one master's own facts: its kind, persistence, replication, commands, ACL, round trip and scripts. */
export function perMaster(m: MasterFacts, options: { readonly nodeTimeoutMs: number }, add: (f: Finding) => void): void {
  const master = m.url;
  if (m.mode === 'sentinel') {
    add({ severity: 'hazard', check: 'sentinel', master, message: `${master} is a Sentinel, not a Redis server`,
      consequence: 'it cannot hold locks', fix: 'give the masters\' addresses, not Sentinel\'s' });
    return;
  }
  if ((m.clusterEnabled === true || m.mode === 'cluster') && !namesCluster(master)) {
    add({
      severity: 'hazard', check: 'cluster', master, message: `${master} runs in cluster mode`,
      consequence: 'a multi-resource lock\'s keys hash to different slots (CROSSSLOT), and a cluster fails over to asynchronous replicas: '
        + 'it is one replicated store, not independent masters',
      fix: 'use standalone servers (cluster-enabled no) as Redlock masters, or name a cluster as one member (redis+cluster://host:port)',
    });
  }
  if (m.role === 'slave') {
    add({
      severity: 'hazard', check: 'replica-as-master', master, message: `${master} is a replica of ${m.masterOf ?? 'another server'}`,
      consequence: 'writes are refused (READONLY) or, on a writable replica, lost at the next resync: this master never votes for a lock',
      fix: 'give the master\'s address, or REPLICAOF NO ONE on a server meant to be independent',
    });
  } else if ((m.replicas ?? 0) > 0) {
    add({
      severity: 'warning', check: 'has-replicas', master, message: `${master} has ${m.replicas} connected replica(s)`,
      consequence: 'if a failover (Sentinel, a managed service) promotes a replica, locks not yet replicated are lost while their '
        + 'holders still run',
      fix: 'no automatic failover on Redlock masters; a replaced master must stay out for longer than the longest lock TTL',
    });
  }
  if (m.config === undefined) {
    add({
      severity: 'warning', check: 'config', master,
        message: `cannot read the configuration of ${master}: ${m.configError ?? 'CONFIG GET failed'}`,
      consequence: 'persistence and eviction were not checked',
      fix: 'run doctor as a user allowed CONFIG GET (+config|get), or check appendfsync and maxmemory-policy by hand',
    });
  } else {
    const c = m.config;
    const policy = c['maxmemory-policy'] ?? 'noeviction';
    if (Number(c.maxmemory ?? '0') > 0 && policy !== 'noeviction') {
      add({
        severity: 'hazard', check: 'eviction', master, message: `${master}: maxmemory ${c.maxmemory} with maxmemory-policy ${policy}`,
        consequence: policy.startsWith('volatile')
          ? 'lock keys all carry a TTL, so volatile-* eviction picks them: a held lock can vanish under memory pressure'
          : 'any key may be evicted under memory pressure, held locks included',
        fix: 'maxmemory-policy noeviction on lock masters (writes then fail loudly instead of dropping locks)',
      });
    }
    if (c.appendonly === 'yes' && c.appendfsync === 'always') {
      add({ severity: 'info', check: 'persistence', master, message: `${master}: appendonly yes, appendfsync always`,
        consequence: 'every acknowledged lock survives a crash', fix: 'none needed' });
    } else {
      const what = c.appendonly === 'yes' ? `appendonly yes with appendfsync ${c.appendfsync ?? '?'}`
        : `appendonly no${c.save === '' || c.save === undefined ? ', no snapshots' : `, snapshots (save ${c.save})`}`;
      add({
        severity: 'warning', check: 'persistence', master, message: `${master}: ${what}`,
        consequence: c.appendonly === 'yes'
          ? 'a power loss may drop the last second of lock writes: a restarted master may grant a lock another client still holds'
          : 'a restarted master comes back without the locks it held: another client can take a lock that is still held',
        fix: 'restart a crashed master only after the longest lock TTL has passed (delayed restart), or set appendonly yes and '
          + 'appendfsync always',
      });
    }
  }
  const native = m.native;
  const scriptFree = native !== undefined && native.setIfEq && native.deleteIfEq !== undefined;
  if (native !== undefined) {
    add(scriptFree
      ? { severity: 'info', check: 'commands', master,
        message: `${master}: single-key extend and release run script-free (SET IFEQ, ${native.deleteIfEq})`
          + (native.msetex ? ', and a lone multi-key acquisition as one MSETEX' : ''),
          consequence: `less CPU per lock on the master; ${native.msetex ? 'multi-key extends and releases' : 'multi-key locks'}`
            + ', fencing and the lock kinds still run Lua scripts',
            fix: "none needed (commands: 'scripts' forces scripts)" }
      : { severity: 'info', check: 'commands', master, message: `${master}: extend and release run as Lua scripts `
          + `(no ${native.setIfEq ? '' : 'SET IFEQ, '}${native.deleteIfEq === undefined ? 'DELIFEQ or DELEX' : ''})`.replace(', )', ')'),
        consequence: 'the script path, as on every Redis 7', fix: 'none needed; Valkey 9.0+ or Redis 8.4+ runs them natively' });
  }
  if (m.aclDenied !== undefined && m.aclDenied.length > 0) {
    const scriptsOnly = m.aclDenied.every((c) => SCRIPT_ONLY.has(c));
    add({
      severity: scriptsOnly && scriptFree ? 'warning' : 'hazard', check: 'acl', master,
        message: `${master}: user ${m.aclUser ?? '?'} may not run ${m.aclDenied.join(', ')}`,
      consequence: scriptsOnly && scriptFree
        ? 'single-key locks still work here (native commands); multi-key locks, fencing, the lock kinds and runOnce fail on this master '
          + 'with MisconfigurationError (noscripting)'
        : 'every lock operation on this master that needs them fails with NOPERM: it never votes',
      fix: `grant them, e.g. ACL SETUSER ${m.aclUser ?? '<user>'} `
        + `+${m.aclDenied.map((c) => c.toLowerCase().replace(' ifeq', '').replace(' ', '|')).join(' +')} with a key pattern `
        + `covering the lock keys`,
    });
  } else if (m.aclNote !== undefined) {
    add({ severity: 'info', check: 'acl', master, message: `${master}: ${m.aclNote}`,
      consequence: 'a missing permission would show as NOPERM errors per master',
        fix: 'run doctor as an admin user to check all commands' });
  }
  if (m.rttMs !== undefined && m.rttMs > options.nodeTimeoutMs / 2) {
    add({
      severity: 'warning', check: 'latency', master,
        message: `${master}: round trip ${m.rttMs.toFixed(1)} ms, more than half of nodeTimeout ${options.nodeTimeoutMs} ms`,
      consequence: 'calls time out under load and the master stops counting toward the quorum; the validity left after acquiring shrinks '
        + 'by the round trip',
      fix: 'place masters close to the clients, or raise nodeTimeout (the Redlock paper: a few ms to tens of ms for a 10 s TTL)',
    });
  }
  if (m.scriptCached === false) {
    add({ severity: 'info', check: 'script', master,
      message: `${master}: pipelock's scripts are not all cached (no client connected since its last restart or SCRIPT FLUSH)`,
        consequence: 'none: pipelock loads them on connect and after NOSCRIPT', fix: 'none needed' });
  }
}

/** What pipelock runs only in its scripts or to load them; without them, single-key locks still work on native commands. */
const SCRIPT_ONLY: ReadonlySet<string> = new Set(['EVALSHA', 'SCRIPT LOAD', 'EXISTS', 'DEL', 'PEXPIRE', 'INCR', 'TIME']);
