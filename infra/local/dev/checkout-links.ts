import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import type { WorkerFunction } from '../../definition.js';
import { EVENTS } from '../../../shared/domain/events.js';
import { getPayment } from '../../../shared/store/payments.js';
import { routableRecords } from '../../../shared/store/stream-events.js';
import { createRecord, paymentLinks } from '../../../shared/usecases/payments/present.js';
import type { PollerWorker, WorkerHandler } from '../sources/worker.js';

/**
 * The local stack's terminal shows the checkout page of every new payment (made with `dev payment`, curl or a
 * test): the event router, which sees every `payment.created`, is wrapped so that each one also prints a line
 * with the page's URL. Local only; the deployed router is the plain handler.
 */
export function announcingCheckouts(worker: WorkerFunction, rootDir: string, log: (line: string) => void): PollerWorker {
  let inner: WorkerHandler | undefined;
  const handler: WorkerHandler = async (event, context) => {
    await announce(event as DynamoDBStreamEvent, log).catch(() => undefined); // a line in a terminal, never a failed batch
    inner ??= ((await import(pathToFileURL(join(rootDir, worker.entry)).href)) as { handler: WorkerHandler }).handler;
    return inner(event, context);
  };
  return { name: worker.name, trigger: worker.trigger, timeoutSeconds: worker.timeoutSeconds, handler };
}

async function announce(event: DynamoDBStreamEvent, log: (line: string) => void): Promise<void> {
  const base = process.env.PUBLIC_BASE_URL;
  if (!base) return;
  const created = (event.Records ?? [])
    .flatMap((record) => routableRecords(record, ''))
    .flatMap((r) => ('event' in r && r.event.type === EVENTS.paymentCreated ? [r.event] : []));
  for (const { tenantId, payload } of created) {
    const paymentId = payload.transaction_id;
    if (typeof paymentId !== 'string') continue;
    const payment = await getPayment(tenantId, paymentId);
    if (!payment) continue;
    // As the API shows the payment: the amount at the currency's display precision.
    const shown = createRecord(payment, paymentLinks(base));
    log(`checkout: ${shown.checkout_url}  (payment ${shown.transaction_id}, ${shown.amount_crypto} ${shown.currency})`);
  }
}
