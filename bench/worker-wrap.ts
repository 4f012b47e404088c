/**
 * A worker of the definition as the local stack's pollers run it, for the benches that count, time, gate or mark
 * its invocations: `around` gets each event with the worker's handler loader (`entry`, imported once, on first use).
 */
import type { Context } from 'aws-lambda';
import { WORKER_FUNCTIONS } from '../infra/definition.js';
import type { PollerWorker } from '../infra/local/pollers.js';

export type WorkerHandler = (event: never, context: Context) => Promise<unknown>;

export function benchWorker(
  name: string,
  entry: string,
  around: (event: never, context: Context, handler: () => Promise<WorkerHandler>) => Promise<unknown>,
  /** Another trigger than the definition's: e.g. a scheduled worker's wake queue alone, without its schedule. */
  trigger?: PollerWorker['trigger'],
): PollerWorker {
  const w = WORKER_FUNCTIONS.find((f) => f.name === name);
  if (!w) throw new Error(`no worker ${name}`);
  let real: Promise<WorkerHandler> | undefined;
  const handler = (): Promise<WorkerHandler> => (real ??= import(entry).then((m: { handler: WorkerHandler }) => m.handler));
  return {
    name,
    trigger: trigger ?? w.trigger,
    timeoutSeconds: w.timeoutSeconds,
    handler: (event: never, context: Context) => around(event, context, handler),
  };
}
