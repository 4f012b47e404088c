/**
 * The schedule source, as EventBridge rules do it: a "Scheduled Event" every N minutes (the first run shortly
 * after start), never two runs of one worker at once.
 */
import type { ScheduledEvent } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { LOCAL_ACCOUNT_ID } from '../lambda/runtime.js';
import { errorText } from './worker.js';
import type { Source, SourceEnv, WorkerSlot } from './worker.js';

export interface ScheduleOptions {
  /** Delay of the first run after start (default 2 s). */
  readonly firstRunDelayMs?: number;
  /** Period of a worker defined as every N minutes (default N minutes). */
  readonly intervalMs?: (everyMinutes: number) => number;
}

export function scheduleSource(env: SourceEnv, options: ScheduleOptions = {}): Source {
  const { log, region, signal } = env;

  const scheduledEvent = (slot: WorkerSlot): ScheduledEvent => ({
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: LOCAL_ACCOUNT_ID,
    time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region,
    resources: [`arn:aws:events:${region}:${LOCAL_ACCOUNT_ID}:rule/${slot.worker.name}-schedule`],
    detail: {},
  });

  const run = async (slot: WorkerSlot): Promise<void> => {
    const handler = await slot.load();
    if (!handler) return;
    const started = Date.now();
    try {
      await slot.invoke(handler, scheduledEvent(slot));
    } catch (error) {
      log(`pollers: ${slot.worker.name} (scheduled) failed after ${Date.now() - started} ms: ${errorText(error)}`);
    }
  };

  const loop = (slot: WorkerSlot): Promise<void> => {
    const trigger = slot.worker.trigger;
    if (trigger.kind !== 'schedule') return Promise.resolve();
    const interval = options.intervalMs ? options.intervalMs(trigger.everyMinutes) : trigger.everyMinutes * 60_000;
    return new Promise<void>((done) => {
      let timer: NodeJS.Timeout | undefined;
      const next = (delay: number): void => {
        if (env.stopped()) return done();
        timer = setTimeout(() => {
          timer = undefined;
          if (env.stopped()) return done();
          const started = Date.now();
          // Never two runs at once: the next one is planned when this one ends.
          void slot.serial(() => (env.stopped() ? Promise.resolve() : run(slot))).then(() => next(Math.max(0, started + interval - Date.now())));
        }, delay);
      };
      next(options.firstRunDelayMs ?? 2_000);
      signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          done();
        },
        { once: true },
      );
    });
  };

  return { once: run, loop, close: () => Promise.resolve() };
}
