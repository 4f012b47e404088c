/**
 * One local stack per data dir: `stack.lock` in the data dir holds the pid of the process running the stack
 * (and, once known, its API URL). A second start on the same dir is refused with a message naming the running
 * stack; a lock whose process is gone (a crash) is stale and is cleared. The lock is taken before `--fresh`
 * wipes anything, so a live stack's database is never wiped under it.
 */
import { closeSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { LocalStackSetupError } from './dynamodb.js';

export const LOCK_FILE = 'stack.lock';

export interface LockInfo {
  readonly pid: number;
  readonly startedAt: string;
  readonly apiUrl?: string | null;
}

export interface StackLock {
  readonly path: string;
  /** Records the API URL in the lock (shown to a second start). */
  update(info: Partial<Pick<LockInfo, 'apiUrl'>>): void;
  /** Removes the lock if it is still this process's. Idempotent, synchronous (safe in an `exit` hook). */
  release(): void;
}

/** Whether `pid` is a live process that can be running a stack (a node process, where /proc tells). */
export function isStackProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: alive, owned by someone else.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    // A pid reused by an unrelated program after a crash does not hold the lock.
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('node');
  } catch {
    return true;
  }
}

function readLock(path: string): LockInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockInfo>;
    return typeof info.pid === 'number' ? { pid: info.pid, startedAt: String(info.startedAt ?? '?'), apiUrl: info.apiUrl ?? null } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes the lock of `dataDir` (which must exist) for this process, or throws a LocalStackSetupError naming the
 * stack that holds it. `log` hears about a stale lock being cleared.
 */
export function acquireStackLock(dataDir: string, log: (line: string) => void = () => undefined): StackLock {
  const path = join(dataDir, LOCK_FILE);
  let info: LockInfo = { pid: process.pid, startedAt: new Date().toISOString() };
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      try {
        writeSync(fd, JSON.stringify(info));
      } finally {
        closeSync(fd);
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 2) throw error;
    }
    const holder = readLock(path);
    if (holder && isStackProcessAlive(holder.pid)) {
      throw new LocalStackSetupError(
        `Another local stack is running on ${dataDir} (pid ${holder.pid}, started ${holder.startedAt}` +
          `${holder.apiUrl ? `, API ${holder.apiUrl}` : ''}): stop it first (Ctrl-C in its terminal, or kill ${holder.pid}), ` +
          'or use another GATEWAY_LOCAL_DIR.',
      );
    }
    log(`stack: cleared a stale lock (${holder ? `pid ${holder.pid} is gone` : 'unreadable'})`);
    rmSync(path, { force: true });
  }
  let released = false;
  const ours = (): boolean => readLock(path)?.pid === process.pid;
  return {
    path,
    update(more) {
      if (released || !ours()) return;
      info = { ...info, ...more };
      writeFileSync(path, JSON.stringify(info));
    },
    release() {
      if (released) return;
      released = true;
      if (ours()) rmSync(path, { force: true });
    },
  };
}
