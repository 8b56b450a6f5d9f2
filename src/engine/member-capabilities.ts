import type { CapabilityChange } from './capability.js';
import type { Capabilities } from '../protocol/native.js';

/**
 * One member's capabilities as `Redlock.capabilities()` and the 'capability' event tell them: what
 * it accepts, and so which commands its single-key operations use (docs/deployments.md, "Valkey, Redis 8 and the script-free path").
 */
export interface MemberCapabilities {
  /** The member's place in the constructor's list. */
  readonly member: number;
  /** `host:port` (or the cluster's name). */
  readonly name: string;
  /** Whether a probe has answered since pipelock connected; until then, scripts as before. */
  readonly probed: boolean;
  /** `SET … IFEQ` (Valkey 8.1+, Redis 8.4+). */
  readonly setIfEq: boolean;
  /** `DELIFEQ` (Valkey 9.0+) or `DELEX … IFEQ` (Redis 8.4+, Valkey 9.2+), if either. */
  readonly deleteIfEq: 'DELIFEQ' | 'DELEX' | undefined;
  /** EVALSHA and SCRIPT LOAD allowed for this user. */
  readonly scripting: boolean;
  /**
   * `MSETEX` (Valkey 9.1+, Redis 8.4+): a lone multi-resource acquisition goes in one command, no script (where scripts
   * run: such a lock's extend and release are scripts).
   */
  readonly msetex: boolean;
  /** What a single-key extend sends there (with the default `commands: 'auto'`). */
  readonly extend: 'SET IFEQ' | 'script' | 'unavailable';
  /** What a single-key release sends there (with the default `commands: 'auto'`). */
  readonly release: 'DELIFEQ' | 'DELEX' | 'script' | 'unavailable';
  /** Why it changed ('probe' at connect, 'fallback' after a native command or script call failed) and, for a fallback, the error. */
  readonly reason?: 'probe' | 'fallback';
  /** The failure that caused a fallback. */
  readonly error?: Error;
}

export function memberCapabilities(member: number, name: string, caps: Capabilities, probed: boolean,
  change?: CapabilityChange): MemberCapabilities {
  const scriptOr = caps.scripting ? 'script' : 'unavailable';
  return {
    member,
    name,
    probed,
    setIfEq: caps.setIfEq,
    deleteIfEq: caps.deleteIfEq,
    scripting: caps.scripting,
    msetex: caps.msetex,
    extend: caps.setIfEq ? 'SET IFEQ' : scriptOr,
    release: caps.deleteIfEq ?? scriptOr,
    ...(change === undefined ? {} : { reason: change.reason, ...(change.error === undefined ? {} : { error: change.error }) }),
  };
}
