import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderOpenApi } from '../../../scripts/openapi-document.js';
import { docsRoutes } from '../../../functions/system/docs.js';
import { systemRoutes } from '../../../functions/system/routes.js';
import { createApi } from '../../../shared/http/pipeline.js';
import type { SystemDeps } from '../../../shared/runtime/system.js';
import { apiEvent, lambdaContext } from './event.js';

/** The system Lambda serves functions/system/openapi.json, generated at build time from every group's routes. */
const committed = readFileSync(resolve(dirname(fileURLToPath(import.meta.url)), '../../../functions/system/openapi.json'), 'utf8');

describe('the OpenAPI document', () => {
  it('is the committed file, regenerated from the route definitions (run `npm run build:openapi` when this fails)', () => {
    expect(committed).toBe(renderOpenApi());
  });

  it('is served by the system routes without credentials, with the deployment as server, and names the documented groups', async () => {
    const deps: SystemDeps = { table: { ping: async () => undefined }, publicBaseUrl: () => 'https://api.example.test' };
    const handler = createApi<SystemDeps>([...systemRoutes, ...docsRoutes], deps);
    const res = await handler(apiEvent('GET', '/openapi.json'), lambdaContext);
    const served = JSON.parse(typeof res === 'object' && res.body ? res.body : '{}') as { openapi: string; servers: unknown; paths: Record<string, unknown> };
    expect(served.openapi).toBe('3.1.0');
    expect(served.servers).toEqual([{ url: 'https://api.example.test' }]);
    expect(Object.keys(served.paths)).toEqual(
      expect.arrayContaining(['/o/token/', '/user/me/', '/status/', '/currencies/', '/rates/{currency}/', '/payments/', '/user/webhooks/']),
    );
    expect(served.paths).toEqual((JSON.parse(committed) as { paths: unknown }).paths);
  });
});
