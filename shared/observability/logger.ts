import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';

/**
 * Structured logging: one JSON object per line (level, message, timestamp, service, and the fields given),
 * through `@aws-lambda-powertools/logger`. `POWERTOOLS_LOG_LEVEL` sets the level (default INFO),
 * `POWERTOOLS_SERVICE_NAME` the service (default `gateway`). Metric lines are not log lines: they are printed
 * as bare EMF by shared/observability/metrics.ts.
 *
 * Use cases receive a `Log` (the port) or use `logger`; workers get a child carrying their name and the
 * Lambda request id (shared/runtime/worker.ts).
 */
export type LogFields = Readonly<Record<string, unknown>>;

/** What code that logs needs: the port a use case declares, implemented by `logger` and by test fakes. */
export interface Log {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/**
 * The Powertools logger, built when the first line is logged rather than when the module loads: an API Lambda logs
 * only what goes wrong (shared/http/errors.ts), so most of its cold starts never build it.
 */
let root: Logger | undefined;
const rootLogger = (): Logger => (root ??= new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'gateway' }));

/** A `Log` over a Powertools logger, which `powertools` yields (built on first use). */
function logOf(powertools: () => Logger): Log {
  const at =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (message: string, fields: LogFields = {}): void =>
      powertools()[level](message, { ...fields });
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** The process-wide logger. */
export const logger: Log = logOf(rootLogger);

/** A logger whose every line carries `fields` (e.g. `{ worker: 'chain-tx' }`) and, when given, the Lambda context. */
export function childLogger(fields: LogFields, context?: Context): Log {
  const child = rootLogger().createChild({ persistentKeys: { ...fields } });
  if (context) child.addContext(context);
  return logOf(() => child);
}

/** An error as a log field: its message (and name when it is not a plain Error). */
export function errorField(error: unknown): string {
  if (error instanceof Error) return error.name === 'Error' ? error.message : `${error.name}: ${error.message}`;
  return String(error);
}
