import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z, type ZodType } from 'zod';
import type { AnyRoute } from './route.js';

/**
 * The OpenAPI 3.1 document, generated from the same route definitions and zod schemas that validate
 * requests, so the published interface cannot drift from the code. Shapes the spec leaves open are
 * decided in the route's schemas and published here.
 */

const ErrorEnvelope = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      details: z.record(z.string(), z.unknown()).describe('Per code; for validation errors, field -> list of messages'),
    }),
  })
  .meta({ id: 'ErrorEnvelope' });

const STANDARD_ERRORS: Record<number, string> = {
  400: 'invalid_request (details map each field to its messages)',
  401: 'authentication_failed',
  403: 'permission_denied (details.required_scopes, details.token_scopes), account_suspended, ip_not_allowed',
  429: 'rate_limit_exceeded (Retry-After, X-RateLimit-*)',
};

const openApiPath = (path: string) => path.replace(/\{(\w+)\+\}/g, '{$1}');

export interface DocumentInfo {
  readonly title: string;
  readonly version: string;
  readonly serverUrl?: string;
}

export function buildOpenApi(routes: readonly AnyRoute[], info: DocumentInfo): object {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer', description: 'Access token from POST /o/token/' });
  registry.registerComponent('securitySchemes', 'apiKey', { type: 'apiKey', in: 'header', name: 'X-API-Key' });
  registry.registerComponent('securitySchemes', 'oauth2', {
    type: 'oauth2',
    flows: { clientCredentials: { tokenUrl: '/o/token/', scopes: { read: 'Read', write: 'Change', admin: 'Platform fees' } } },
  });

  for (const route of routes) {
    if (!route.doc) continue;
    const names = [...route.path.matchAll(/\{(\w+)\+?\}/g)].map((m) => m[1] ?? '');
    const params = names.length > 0 ? z.object(Object.fromEntries(names.map((n) => [n, z.string()]))) : undefined;
    const bodyTypes = route.bodyTypes ?? ['json'];
    const body = route.body
      ? {
          content: Object.fromEntries(
            bodyTypes.map((t) => [t === 'json' ? 'application/json' : 'application/x-www-form-urlencoded', { schema: route.body as ZodType }]),
          ),
        }
      : undefined;
    const responses: Record<string, { description: string; content?: Record<string, { schema: ZodType }> }> = {};
    for (const [status, response] of Object.entries(route.doc.responses)) {
      responses[status] = { description: response.description, ...(response.schema ? { content: { 'application/json': { schema: response.schema } } } : {}) };
    }
    if (route.auth !== 'public') {
      for (const [status, description] of Object.entries(STANDARD_ERRORS)) {
        responses[status] ??= { description, content: { 'application/json': { schema: ErrorEnvelope } } };
      }
    }
    const security: Record<string, string[]>[] =
      route.auth === 'public' ? [] : [{ bearer: [...(route.scopes ?? [])] }, ...(route.auth === 'bearer-or-api-key' ? [{ apiKey: [] }] : [])];
    registry.registerPath({
      method: route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete',
      path: openApiPath(route.path),
      summary: route.doc.summary,
      description: [route.doc.description, route.scopes?.length ? `Scopes: ${route.scopes.join(' ')}.` : ''].filter(Boolean).join('\n\n') || undefined,
      tags: [...route.doc.tags],
      security,
      request: {
        ...(params ? { params } : {}),
        ...(route.query ? { query: route.query as unknown as z.ZodObject } : {}),
        ...(body ? { body } : {}),
      },
      responses,
    });
  }
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, description: 'Multi-tenant cryptocurrency payment gateway (interface v1.0).' },
    servers: info.serverUrl ? [{ url: info.serverUrl }] : [],
  });
}
