/**
 * Child processes of the local stack (DynamoDB Local's java, every anvil) die with it, however it dies.
 *
 * Node has no PR_SET_PDEATHSIG, and an `exit` hook does not run on SIGKILL or a crash of the runtime. So each
 * such child gets a watchdog: a tiny `sh` whose stdin is a pipe from this process. The kernel closes the
 * pipe's write end when this process ends for any reason, SIGKILL included; `read` then sees end-of-file and
 * the watchdog sends the child SIGTERM (anvil dumps its state, java closes its files), then SIGKILL if it is
 * still there 5 s later. The watchdog ignores SIGINT, SIGTERM and SIGHUP (a Ctrl-C reaches the whole process
 * group, and the watchdog must outlive this process to do its job), and it is ended as soon as its child
 * exits, so it never signals a pid the system has handed to another process.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';

const WATCHDOG = [
  "trap '' INT TERM HUP",
  'while read -r _; do :; done',
  'kill -TERM "$1" 2>/dev/null || exit 0',
  'i=0',
  'while kill -0 "$1" 2>/dev/null && [ "$i" -lt 50 ]; do sleep 0.1; i=$((i + 1)); done',
  'kill -KILL "$1" 2>/dev/null',
].join('\n');

/** Makes `child` end when this process ends (see above). Returns the watchdog's pid. */
export function dieWithParent(child: ChildProcess): number | undefined {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return undefined;
  const watchdog = spawn('sh', ['-c', WATCHDOG, 'gateway-watchdog', String(child.pid)], { stdio: ['pipe', 'ignore', 'ignore'] });
  watchdog.on('error', () => undefined);
  watchdog.stdin?.on('error', () => undefined);
  // Neither the watchdog nor its pipe keeps this process alive.
  watchdog.unref();
  (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  const end = (): void => {
    watchdog.kill('SIGKILL');
  };
  if (child.exitCode !== null || child.signalCode !== null) end();
  else child.once('exit', end);
  return watchdog.pid;
}
