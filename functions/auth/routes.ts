import { z } from 'zod';
import { READ_WRITE } from '../../shared/domain/scopes.js';
import { created, noContent, ok, principalOf, route, type RouteResult } from '../../shared/http/route.js';
import { appsOf, CreateAppInput, createApp, removeApp } from '../../shared/usecases/auth/apps.js';
import { clientAuthFrom, issueToken, TokenRequest } from '../../shared/usecases/auth/issue-token.js';
import { RevokeRequest, revokeToken } from '../../shared/usecases/auth/revoke-token.js';
import type { OAuthApp } from '../../shared/store/credentials.js';

const noStore = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

const TokenAnswer = z.object({ access_token: z.string(), token_type: z.literal('Bearer'), expires_in: z.number().int(), scope: z.string() });
const OAuthErrorBody = z.object({ error: z.string(), error_description: z.string() });
const AppRecord = z.object({
  id: z.string().uuid(),
  name: z.string(),
  client_id: z.string(),
  scopes: z.array(z.string()),
  created_at: z.string(),
});

const presentApp = (app: OAuthApp) => ({ id: app.id, name: app.name, client_id: app.clientId, scopes: app.scopes, created_at: app.createdAt });

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
      responses: { 200: { description: 'Access token', schema: TokenAnswer }, 400: { description: 'RFC 6749 error', schema: OAuthErrorBody }, 401: { description: 'invalid_client', schema: OAuthErrorBody } },
    },
    handle: async (req): Promise<RouteResult> => {
      const answer = await issueToken(req.body, clientAuthFrom(req.headers.authorization, req.body), req.now);
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
    handle: async (req) => {
      await revokeToken(req.body, clientAuthFrom(req.headers.authorization, req.body));
      return { status: 200, headers: noStore };
    },
  }),
  route({
    method: 'GET',
    path: '/o/apps/',
    auth: 'bearer',
    scopes: READ_WRITE,
    doc: { summary: 'List OAuth applications', tags: ['Authentication'], responses: { 200: { description: 'Applications', schema: z.object({ results: z.array(AppRecord), count: z.number().int() }) } } },
    handle: async (req) => {
      const apps = await appsOf(principalOf(req).tenant.id);
      return ok({ results: apps.map(presentApp), count: apps.length });
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
      description: 'The client secret is shown once. Scopes default to the caller\'s (without admin) and can never exceed them.',
      tags: ['Authentication'],
      responses: { 201: { description: 'Application with its secret', schema: AppRecord.extend({ client_secret: z.string() }) } },
    },
    handle: async (req) => {
      const principal = principalOf(req);
      const { app, clientSecret } = await createApp(req.body, { tenantId: principal.tenant.id, scopes: principal.scopes }, req.now);
      return created({ ...presentApp(app), client_secret: clientSecret });
    },
  }),
  route({
    method: 'DELETE',
    path: '/o/apps/{id}/',
    auth: 'bearer',
    scopes: READ_WRITE,
    doc: { summary: 'Delete an OAuth application and revoke its tokens', tags: ['Authentication'], responses: { 204: { description: 'Deleted' } } },
    handle: async (req) => {
      await removeApp(principalOf(req).tenant.id, req.params.id ?? '');
      return noContent();
    },
  }),
];
