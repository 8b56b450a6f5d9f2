/** `hazard`: breaks Redlock's safety or liveness (non-zero exit); `warning`: safe only under a condition doctor cannot see. */
export type Severity = 'hazard' | 'warning' | 'info';

export interface Finding {
  readonly severity: Severity;
  /** A stable name for the check, for --json consumers. */
  readonly check: string;
  /** The master it concerns (URL, credentials redacted), or none for the whole set. */
  readonly master?: string;
  readonly message: string;
  readonly consequence: string;
  readonly fix: string;
}
