import { eventsRuntime } from '../../shared/runtime/events.js';
import { sequenceOf, streamBatchWorker } from '../../shared/runtime/worker.js';
import type { RoutableRecord } from '../../shared/usecases/events/route-events.js';
import { routeEvents } from '../../shared/usecases/events/route-events.js';

/**
 * The event router's Lambda: DynamoDB stream records of outbox INSERTs (the event source mapping filters them)
 * read back into events (shared/store/outbox.ts), routed by shared/usecases/events/route-events.ts; records to
 * retry are answered by sequence number.
 */
const deps = eventsRuntime();

export const handler = streamBatchWorker('event-router', (records, log) =>
  routeEvents(
    records.map((record) => deps.read(record, sequenceOf(record))).filter((r): r is RoutableRecord => r !== null),
    { ...deps, log },
  ),
);
