/** One local master's command line: no persistence (a restart comes back empty), and a working directory of its own. */
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
