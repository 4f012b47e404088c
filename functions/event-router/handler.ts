import { eventsRuntime } from '../../shared/runtime/events.js';
import { sequenceOf, streamBatchWorker } from '../../shared/runtime/worker.js';
import { routeEvents } from '../../shared/usecases/events/route-events.js';

/**
 * The event router's Lambda: DynamoDB stream records (the event source mapping filters them: infra/table.ts
 * ROUTED_RECORDS) read back into events (shared/store/stream-events.ts), routed by shared/usecases/events/route-events.ts; records to
 * retry are answered by sequence number.
 */
const deps = eventsRuntime();

export const handler = streamBatchWorker('event-router', (records, log) =>
  routeEvents(
    records.flatMap((record) => deps.read(record, sequenceOf(record))),
    { ...deps, log },
  ),
);
