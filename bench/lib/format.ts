/** How the benchmark reports print figures: '–' for what was not measured. */
export const fmtInt = (v: number): string => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '–');
export const fmtX = (v: number): string => (Number.isFinite(v) ? `${v.toFixed(2)}×` : '–');
/** Microseconds printed as milliseconds. */
export const fmtMs = (us: number): string => (Number.isFinite(us) ? (us / 1000).toFixed(us < 10_000 ? 2 : 1) : '–');
export const fmtUs = (v: number): string => (Number.isFinite(v) ? v.toFixed(1) : '–');
