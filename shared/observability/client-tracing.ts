/**
 * Where the AWS SDK clients the gateway creates are handed to tracing. Off by default (each client is returned as
 * it is), so the API Lambdas do not load the X-Ray SDK; the workers turn it on once at load
 * (`traceClientsWith`, shared/observability/tracing.ts), before their first client is made, and every DynamoDB,
 * SQS, KMS and S3 call then appears in the invocation's trace as a subsegment of its own.
 */
export type ClientInstrument = <C extends object>(client: C) => C;

let instrument: ClientInstrument | undefined;

/** A client, instrumented when the Lambda traces its clients. Call it where the client is created. */
export function traced<C extends object>(client: C): C {
  return instrument ? instrument(client) : client;
}

/** Instrument every client created from now on. */
export function traceClientsWith(next: ClientInstrument | undefined): void {
  instrument = next;
}
