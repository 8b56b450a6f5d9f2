import { rmSync } from 'node:fs';

/** Every server and temp dir this process made, killed on 'exit' (and on SIGINT/SIGTERM when asked), so none outlives it. */
const live = new Map<number, boolean>(); // pid → whether its starter wants signal handling
const dirs = new Set<string>();
let wantSignals = 0;
let exitHookInstalled = false;

const kSignals = ['SIGINT', 'SIGTERM'] as const;

export function trackProcess(pid: number, handleSignals: boolean): void {
  if (!exitHookInstalled) {
    process.on('exit', reapSync);
    exitHookInstalled = true;
  }
  live.set(pid, handleSignals);
  if (handleSignals && wantSignals++ === 0) for (const signal of kSignals) process.on(signal, onSignal);
}

export function untrackProcess(pid: number): void {
  const handleSignals = live.get(pid);
  if (!live.delete(pid)) return;
  // Once nothing of ours is running, the process's signal behaviour is back to what it was.
  if (handleSignals === true && --wantSignals === 0) removeSignalHandlers();
}

export function trackDir(dir: string): void {
  dirs.add(dir);
}

export function untrackDir(dir: string): void {
  dirs.delete(dir);
}

function onSignal(signal: NodeJS.Signals): void {
  reapSync();
  removeSignalHandlers();
  // Re-raise for the default action (death by that signal), unless someone else also listens:
  // then they own the decision to exit, and a second delivery would call them twice.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

function removeSignalHandlers(): void {
  wantSignals = 0;
  for (const signal of kSignals) process.off(signal, onSignal);
}

function reapSync(): void {
  for (const pid of live.keys()) {
    // Either may fail with ESRCH when the server already died, which is the outcome we want.
    try {
      process.kill(pid, 'SIGCONT');
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  live.clear();
  for (const dir of dirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // best effort at exit; the OS temp cleaner gets the rest
    }
  }
  dirs.clear();
}
