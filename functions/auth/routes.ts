import * as z from 'zod';
import { READ_WRITE } from '../../shared/domain/scopes.js';
import type { OAuthApp } from '../../shared/domain/credentials.js';
import { created, noContent, ok, principalOf, routesOf, type RouteResult } from '../../shared/http/route.js';
import { appsOf, CreateAppInput, createApp, removeApp } from '../../shared/usecases/auth/apps.js';
import { clientAuthFrom, issueToken, TokenRequest } from '../../shared/usecases/auth/issue-token.js';
import type { AuthPorts } from '../../shared/usecases/auth/ports.js';
import { RevokeRequest, revokeToken } from '../../shared/usecases/auth/revoke-token.js';
import { lazySchema } from '../../shared/domain/lazy-schema.js';
import type { LazyOutput } from '../../shared/domain/lazy-schema.js';

const route = routesOf<AuthPorts>();

const noStore = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

const TokenAnswer = lazySchema(() => z.object({ access_token: z.string(), token_type: z.literal('Bearer'), expires_in: z.number().int(), scope: z.string() }));
const OAuthErrorBody = lazySchema(() => z.object({ error: z.string(), error_description: z.string() }));
const AppRecord = lazySchema(() =>
  z.object({
    id: z.string().uuid(),
    name: z.string(),
    client_id: z.string(),
    scopes: z.array(z.string()),
    created_at: z.string(),
  }),
);

const AppList = lazySchema(() => z.object({ results: z.array(AppRecord()), count: z.number().int() }));
const CreatedApp = lazySchema(() => AppRecord().extend({ client_secret: z.string() }));
const AppId = lazySchema(() => z.object({ id: z.string() }));

const presentApp = (app: OAuthApp): LazyOutput<typeof AppRecord> => ({
  id: app.id,
  name: app.name,
  client_id: app.clientId,
  scopes: [...app.scopes],
  created_at: app.createdAt,
});

export const authRoutes = [
  route({
    method: 'POST',
    path: '/o/token/',
    auth: 'public',
    body: TokenRequest,
    bodyTypes: ['form', 'json'],
    errorFormat: 'oauth',
    doc: {
      summary: 'Issue an access token (OAuth 2.0 client credentials, RFC 6749 section 4.4)',
      description: 'Client credentials in HTTP Basic or in the body; form or JSON body. Tokens live 3600 s by default.',
      tags: ['Authentication'],
      responses: {
        200: { description: 'Access token', schema: TokenAnswer },
        400: { description: 'RFC 6749 error', schema: OAuthErrorBody },
        401: { description: 'invalid_client', schema: OAuthErrorBody },
      },
    },
    handle: async (req, deps): Promise<RouteResult> => {
      const answer: LazyOutput<typeof TokenAnswer> = await issueToken(req.body, clientAuthFrom(req.headers.authorization, req.body), req.now, deps);
      return ok(answer, noStore);
    },
  }),
  route({
    method: 'POST',
    path: '/o/revoke_token/',
    auth: 'public',
    body: RevokeRequest,
    bodyTypes: ['form', 'json'],
    errorFormat: 'oauth',
    doc: {
      summary: 'Revoke an access token (RFC 7009)',
      tags: ['Authentication'],
      responses: { 200: { description: 'Revoked, or the token was already unknown' }, 401: { description: 'invalid_client', schema: OAuthErrorBody } },
    },
    handle: async (req, deps) => {
      await revokeToken(req.body, clientAuthFrom(req.headers.authorization, req.body), deps);
      return { status: 200, headers: noStore };
    },
  }),
  route({
    method: 'GET',
    path: '/o/apps/',
    auth: 'bearer',
    scopes: READ_WRITE,
    doc: { summary: 'List OAuth applications', tags: ['Authentication'], responses: { 200: { description: 'Applications', schema: AppList } } },
    handle: async (req, deps) => {
      const apps = await appsOf(principalOf(req).tenant.id, deps);
      const answer: LazyOutput<typeof AppList> = { results: apps.map(presentApp), count: apps.length };
      return ok(answer);
    },
  }),
  route({
    method: 'POST',
    path: '/o/apps/',
    auth: 'bearer',
    scopes: READ_WRITE,
    body: CreateAppInput,
    doc: {
      summary: 'Create an OAuth application',
      description: "The client secret is shown once. Scopes default to the caller's (without admin) and can never exceed them.",
      tags: ['Authentication'],
      responses: { 201: { description: 'Application with its secret', schema: CreatedApp } },
    },
    handle: async (req, deps) => {
      const principal = principalOf(req);
      const { app, clientSecret } = await createApp(req.body, { tenantId: principal.tenant.id, scopes: principal.scopes }, req.now, deps);
      const answer: LazyOutput<typeof CreatedApp> = { ...presentApp(app), client_secret: clientSecret };
      return created(answer);
    },
  }),
  route({
    method: 'DELETE',
    path: '/o/apps/{id}/',
    auth: 'bearer',
    scopes: READ_WRITE,
    params: AppId,
    doc: { summary: 'Delete an OAuth application and revoke its tokens', tags: ['Authentication'], responses: { 204: { description: 'Deleted' } } },
    handle: async (req, deps) => {
      await removeApp(principalOf(req).tenant.id, req.params.id, deps);
      return noContent();
    },
  }),
];
