/** The local stack's log: one line per event on stderr, with the time of day, filtered by level. */

export type LogLevel = 'silent' | 'error' | 'info' | 'debug';

export interface Logger {
  error(line: string): void;
  info(line: string): void;
  debug(line: string): void;
}

export function createLogger(level: LogLevel = 'info'): Logger {
  const rank = { silent: 0, error: 1, info: 2, debug: 3 }[level];
  const write = (line: string): void => {
    process.stderr.write(`${new Date().toISOString().slice(11, 23)} ${line}\n`);
  };
  const noop = (): void => undefined;
  return { error: rank >= 1 ? write : noop, info: rank >= 2 ? write : noop, debug: rank >= 3 ? write : noop };
}
