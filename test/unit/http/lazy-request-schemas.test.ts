import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import * as z from 'zod';
import { lazySchema } from '../../../shared/domain/lazy-schema.js';
import { createApi } from '../../../shared/http/pipeline.js';
import { ok, route } from '../../../shared/http/route.js';
import { apiEvent, lambdaContext } from './event.js';

/**
 * A route's `params`, `query` and `body` may be getters (`lazySchema`): a Lambda builds them on the first request of
 * that route, never at load nor for another route's request, and validates with them as with a schema.
 */
describe('request schemas given as getters', () => {
  const built: string[] = [];
  const counted = <S extends z.ZodType>(name: string, build: () => S) =>
    lazySchema(() => {
      built.push(name);
      return build();
    });
  const Params = counted('params', () => z.object({ id: z.string().regex(/^\d+$/) }));
  const Query = counted('query', () => z.object({ limit: z.coerce.number().int().max(10).default(5) }));
  const Body = counted('body', () => z.object({ name: z.string().min(1) }));

  const api = createApi(
    [
      route({
        method: 'GET',
        path: '/things/{id}/',
        auth: 'public',
        params: Params,
        query: Query,
        handle: async (req) => ok({ id: req.params.id, limit: req.query.limit }),
      }),
      route({ method: 'POST', path: '/things/', auth: 'public', body: Body, handle: async (req) => ok({ name: req.body.name }) }),
    ],
    {},
  );
  const call = async (...args: Parameters<typeof apiEvent>) => {
    const answer = (await api(apiEvent(...args), lambdaContext)) as APIGatewayProxyStructuredResultV2 & { body: string };
    return [answer.statusCode, JSON.parse(answer.body)] as const;
  };

  it('are built on the first request of their route only, once, and validate as schemas do', async () => {
    expect(built).toEqual([]);
    expect(await call('GET', '/things/7/', { query: { limit: '3' } })).toEqual([200, { id: '7', limit: 3 }]);
    expect(built.sort()).toEqual(['params', 'query']);

    const [status, answer] = await call('GET', '/things/7/', { query: { limit: '11', other: '1' } });
    expect([status, Object.keys(answer.error.details).sort()]).toEqual([400, ['limit', 'other']]);
    expect((await call('GET', '/things/x/'))[0]).toBe(404);

    expect(await call('POST', '/things/', { body: '{"name":"a"}', headers: { 'content-type': 'application/json' } })).toEqual([200, { name: 'a' }]);
    const [refused, error] = await call('POST', '/things/', { body: '{"name":""}', headers: { 'content-type': 'application/json' } });
    expect([refused, Object.keys(error.error.details)]).toEqual([400, ['name']]);
    expect(built.sort()).toEqual(['body', 'params', 'query']);
  });
});
