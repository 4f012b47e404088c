import type { output, ZodType } from 'zod';

/**
 * A schema built on its first use rather than when its module loads. Building zod schemas is most of what an API
 * Lambda's bundle does at load beyond the SDK (a cold start), and the answer shapes are read only by the OpenAPI
 * document (shared/http/openapi.ts, scripts/build-openapi.ts): each is written `lazySchema(() => z.object(...))`,
 * named like the schema it yields, and called where a schema is needed (`z.array(PaymentRecord())`, a route's
 * `doc.responses[status].schema`). The getter keeps the one instance it built, so a schema with a registry id
 * (`.meta({ id })`) is registered once and the document refers to it by that id.
 */
export type SchemaGetter<S extends ZodType = ZodType> = () => S;

export function lazySchema<S extends ZodType>(build: () => S): SchemaGetter<S> {
  let schema: S | undefined;
  return () => (schema ??= build());
}

/** The output type of a lazily built schema: `LazyOutput<typeof PaymentRecord>` (`z.output` of what it yields). */
export type LazyOutput<G extends SchemaGetter> = output<ReturnType<G>>;
