/** What one cycle of the load does; see `--help` for each. */
export const OPERATIONS = ['acquire-release', 'acquire-extend-release', 'using', 'renew-hold'] as const;
export type Operation = (typeof OPERATIONS)[number];

/**
 * The kind of lock a cycle takes (default mutex). A string union so that each kind is one more
 * member here, one more case in src/load/kinds.ts and one more line in --kind's help.
 */
export const KINDS = ['mutex', 'reentrant', 'semaphore', 'rw', 'election'] as const;
export type Kind = (typeof KINDS)[number];
