import * as z from 'zod';
import { createApi } from '../../../shared/http/pipeline.js';
import { createPublicApi } from '../../../shared/http/public-pipeline.js';
import { ok, route } from '../../../shared/http/route.js';
import { apiEvent, lambdaContext } from './event.js';

/** The pipeline of groups whose routes are all public: it answers as createApi does, and takes no other route. */
const routes = [
  route({
    method: 'POST',
    path: '/echo/',
    auth: 'public',
    body: z.object({ name: z.string().min(2) }),
    handle: async (req) => ok({ name: req.body.name }),
  }),
  route({ method: 'GET', path: '/echo/{id}/', auth: 'public', handle: async (req) => ok({ id: req.params.id }) }),
];
const clock = () => new Date('2026-01-02T03:04:05.000Z');

test('answers every request exactly as createApi does', async () => {
  const full = createApi(routes, {}, { clock });
  const light = createPublicApi(routes, {}, { clock });
  const json = { 'content-type': 'application/json' };
  const requests = [
    apiEvent('POST', '/echo/', { body: '{"name":"Ada"}', headers: json }),
    apiEvent('POST', '/echo', { body: '{"name":"A"}', headers: json }),
    apiEvent('POST', '/echo/', { body: '{"name":', headers: json }),
    apiEvent('POST', '/echo/', { body: 'name=Ada', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
    apiEvent('GET', '/echo/7/', { headers: { 'x-request-id': 'r-1', authorization: 'Bearer whatever' } }),
    apiEvent('DELETE', '/echo/7/'),
    apiEvent('GET', '/nowhere/'),
  ];
  for (const event of requests) expect(await light(event, lambdaContext)).toEqual(await full(event, lambdaContext));
});

test('refuses a route that is not public: it belongs to createApi', () => {
  const guarded = route({ method: 'GET', path: '/mine/', auth: 'bearer', handle: async () => ok({}) });
  expect(() => createPublicApi([...routes, guarded], {})).toThrow('GET /mine/ need createApi');
});
