import { Tracer } from '@aws-lambda-powertools/tracer';
import { traceClientsWith } from './client-tracing.js';

/**
 * Tracing of the asynchronous workers with Powertools Tracer (AWS X-Ray), on functions whose Lambda tracing is
 * active (infra/cdk/constructs/gateway-function.ts). Each invocation gets a `## <worker>` subsegment under
 * Lambda's own segment, annotated (searchable in X-Ray) with the worker's name, the batch size, how many records
 * failed, the cold start and the service; every AWS SDK call of the invocation is a subsegment of it
 * (client-tracing.ts). Outgoing HTTP is not captured: a webhook URL is the merchant's and may carry a token in
 * its query, and chain RPC URLs carry provider keys. Annotations are counts and names the code chooses, never
 * payload, address, amount, e-mail or secret (test/integration/observability/tracing.test.ts reads what is sent).
 *
 * Outside Lambda (the local stack, tests) Tracer disables itself and `withTrace` only runs its work.
 *
 * The API Lambdas are traced by Lambda alone (their segment and the HTTP API's), without this module: the X-Ray
 * SDK adds about 120 KB to a bundle, which their size budgets and cold-start goal do not have room for.
 */
export type Annotations = Readonly<Record<string, string | number | boolean>>;

const tracer = new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'gateway', captureHTTPsRequests: false });

if (tracer.isTracingEnabled()) traceClientsWith((client) => tracer.captureAWSv3Client(client) ?? client);

/** What `work` learns of its trace: it may add annotations once it knows them (e.g. how many records failed). */
export interface Trace {
  annotate(annotations: Annotations): void;
}

const untraced: Trace = { annotate: () => undefined };

/** Runs `work` in a `## <name>` subsegment annotated with `annotations` (or simply runs it when not traced). */
export async function withTrace<T>(name: string, annotations: Annotations, work: (trace: Trace) => Promise<T>): Promise<T> {
  const parent = tracer.isTracingEnabled() ? tracer.getSegment() : undefined;
  if (!parent) return work(untraced);
  const subsegment = parent.addNewSubsegment(`## ${name}`);
  tracer.setSegment(subsegment);
  const trace: Trace = {
    annotate: (more) => {
      for (const [key, value] of Object.entries(more)) tracer.putAnnotation(key, value);
    },
  };
  try {
    tracer.annotateColdStart();
    tracer.addServiceNameAnnotation();
    trace.annotate(annotations);
    return await work(trace);
  } catch (error) {
    subsegment.addError(error instanceof Error ? error : new Error(String(error)));
    throw error;
  } finally {
    subsegment.close();
    tracer.setSegment(parent);
  }
}
