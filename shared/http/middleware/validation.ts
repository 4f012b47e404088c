import type { ZodType } from 'zod';
import { GatewayError, ValidationError } from '../../domain/errors.js';
import type { AnyRoute } from '../route.js';
import type { ApiEvent, RequestState } from './request.js';

/**
 * Zod validation of a route's path parameters, query and body, run with the route's handling (inside the request's
 * count, pipeline-core.ts): a refused body or query is 400 with each field mapped to its messages; path parameters
 * a route's schema refuses name nothing, 404.
 */
export function validateRequest(route: AnyRoute, event: ApiEvent, state: RequestState): { params: unknown; query: unknown; body: unknown } {
  return {
    params: validateParams(route.params, state.params, event.rawPath),
    query: validate(route.query, event.queryStringParameters ?? {}, 'query'),
    body: validate(route.body, state.body, 'body'),
  };
}

/** Zod issues as the envelope's details: each field (dotted path) mapped to its messages. */
function issuesByField(issues: readonly { path: readonly PropertyKey[]; message: string }[], fallback: string): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  for (const issue of issues) {
    const field = issue.path.length > 0 ? issue.path.map(String).join('.') : fallback;
    (fields[field] ??= []).push(issue.message);
  }
  return fields;
}

function validate<T>(schema: ZodType<T> | undefined, input: unknown, where: 'query' | 'body'): T {
  if (!schema) return undefined as T;
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  throw new ValidationError(issuesByField(parsed.error.issues, where === 'body' ? 'non_field_errors' : 'query'));
}

function validateParams(schema: ZodType | undefined, params: Record<string, string>, path: string): unknown {
  if (!schema) return params;
  const parsed = schema.safeParse(params);
  if (parsed.success) return parsed.data;
  throw new GatewayError('not_found', `No endpoint or resource at ${path}.`, issuesByField(parsed.error.issues, 'path'));
}
