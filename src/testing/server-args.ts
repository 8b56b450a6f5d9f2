/**
 * The command line of one local master: no persistence, so a restart comes back empty, and its
 * own working directory so nothing it writes collides with a sibling.
 */
export function serverArgs(port: number, host: string, dir: string, extraArgs: readonly string[] = []): string[] {
  return [
    '--port', String(port),
    '--bind', host,
    '--save', '',
    '--appendonly', 'no',
    '--dir', dir,
    '--daemonize', 'no',
    '--protected-mode', 'no',
    '--loglevel', 'warning',
    ...extraArgs,
  ];
}

/** `redis://host:port`, with brackets around an IPv6 host. */
export function masterUrl(host: string, port: number): string {
  return `redis://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
