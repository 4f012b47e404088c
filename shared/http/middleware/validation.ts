import type * as z from 'zod';
import { GatewayError, ValidationError } from '../../domain/errors.js';
import { WORDING, wordingOf } from '../../domain/errors-wording.js';
import type { AnyRoute } from '../route.js';
import { requestSchema } from '../route.js';
import type { ApiEvent, RequestState } from './request.js';

/**
 * Zod validation of a route's path parameters, query and body, run with the route's handling (inside the request's
 * count, pipeline-core.ts): a refused body or query is 400 with each field mapped to its messages; path parameters
 * a route's schema refuses name nothing, 404. Every message is in the one wording of
 * shared/domain/errors-wording.ts (`wordingOf` is the error map of each parse).
 *
 * A query is closed: a parameter the route's query schema does not name (a route without one takes none) is 400
 * naming it, never ignored, so a misspelt filter cannot answer every row. The v0.9 routes (410 whatever is sent)
 * and the OAuth endpoints (RFC 6749 section 3.2: unrecognised parameters are ignored) keep theirs open.
 */
export function validateRequest(route: AnyRoute, event: ApiEvent, state: RequestState): { params: unknown; query: unknown; body: unknown } {
  return {
    params: validateParams(requestSchema(route.params), state.params, event.rawPath),
    query: validateQuery(route, event.queryStringParameters ?? {}),
    body: validate(requestSchema(route.body), state.body, 'body'),
  };
}

type Issue = { readonly code?: string; readonly path: readonly PropertyKey[]; readonly message: string; readonly keys?: readonly string[] };

/** Zod issues as the envelope's details: each field (dotted path) mapped to its messages; each unknown key its own. */
function issuesByField(issues: readonly Issue[], where: 'query' | 'body' | 'path', fields: Record<string, string[]> = {}): Record<string, string[]> {
  const prefix = (path: readonly PropertyKey[]) => path.map(String).join('.');
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys' && issue.keys) {
      const message = where === 'query' ? WORDING.unknownParameter : issue.message;
      for (const key of issue.keys) (fields[[prefix(issue.path), key].filter(Boolean).join('.')] ??= []).push(message);
      continue;
    }
    const root = issue.path.length === 0;
    const field = root ? (where === 'body' ? 'non_field_errors' : where) : prefix(issue.path);
    const message = root && where === 'body' && issue.code === 'invalid_type' ? WORDING.notAnObject : issue.message;
    (fields[field] ??= []).push(message);
  }
  return fields;
}

function validate<T>(schema: z.ZodType<T> | undefined, input: unknown, where: 'query' | 'body'): T {
  if (!schema) return undefined as T;
  const parsed = schema.safeParse(input ?? {}, { error: wordingOf });
  if (parsed.success) return parsed.data;
  throw new ValidationError(issuesByField(parsed.error.issues, where));
}

/**
 * The parameters a query schema names (an object's keys; through pipes and across a union's options), read from
 * the schema's definition rather than by class, so that a Lambda without query schemas bundles no zod.
 */
function parameterNames(schema: z.ZodType): readonly string[] {
  const def = schema._zod.def as { type: string; shape?: object; in?: z.ZodType; options?: readonly z.ZodType[] };
  if (def.type === 'object' && def.shape) return Object.keys(def.shape);
  if (def.type === 'pipe' && def.in) return parameterNames(def.in);
  if (def.type === 'union' && def.options) return def.options.flatMap(parameterNames);
  throw new Error('A query schema is an object: its keys are the parameters the route takes');
}

const KNOWN = new WeakMap<AnyRoute, ReadonlySet<string>>();

/** The parameters a route takes: its query schema's (none without one). */
export function queryParameters(route: AnyRoute): ReadonlySet<string> {
  let known = KNOWN.get(route);
  if (!known) {
    const query = requestSchema(route.query);
    KNOWN.set(route, (known = new Set(query ? parameterNames(query) : [])));
  }
  return known;
}

function validateQuery(route: AnyRoute, query: Readonly<Record<string, string | undefined>>): unknown {
  if (route.errorFormat === 'legacy' || route.errorFormat === 'oauth') return validate(requestSchema(route.query), query, 'query');
  const known = queryParameters(route);
  const unknown = Object.keys(query).filter((key) => !known.has(key));
  if (unknown.length === 0) return validate(requestSchema(route.query), query, 'query');
  // Every problem at once: the unknown parameters, and what the route's schema says of the ones it takes.
  const fields = Object.fromEntries(unknown.map((key) => [key, [WORDING.unknownParameter]]));
  const rest = Object.fromEntries(Object.entries(query).filter(([key]) => known.has(key)));
  const parsed = requestSchema(route.query)?.safeParse(rest, { error: wordingOf });
  throw new ValidationError(parsed && !parsed.success ? issuesByField(parsed.error.issues, 'query', fields) : fields);
}

function validateParams(schema: z.ZodType | undefined, params: Record<string, string>, path: string): unknown {
  if (!schema) return params;
  const parsed = schema.safeParse(params, { error: wordingOf });
  if (parsed.success) return parsed.data;
  throw new GatewayError('not_found', `No endpoint or resource at ${path}.`, issuesByField(parsed.error.issues, 'path'));
}
