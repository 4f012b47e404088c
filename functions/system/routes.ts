import * as z from 'zod';
import { ok, routesOf } from '../../shared/http/route.js';
import { checkHealth } from '../../shared/usecases/system/health.js';
import type { SystemPorts } from '../../shared/usecases/system/ports.js';
import { lazySchema } from '../../shared/domain/lazy-schema.js';
import type { LazyOutput } from '../../shared/domain/lazy-schema.js';

const route = routesOf<SystemPorts>();

const Status = lazySchema(() => z.object({ status: z.enum(['ok', 'degraded']), time: z.string() }));
const Maintenance = lazySchema(() =>
  z.object({
    maintenance: z.boolean(),
    message: z.string().nullable(),
    scheduled: z.array(z.object({ starts_at: z.string(), ends_at: z.string(), description: z.string() })),
  }),
);

export const systemRoutes = [
  route({
    method: 'GET',
    path: '/status/',
    auth: 'public',
    doc: {
      summary: 'Service status (no authentication)',
      description: 'Answers `ok` when the table answers; 503 with `degraded` otherwise.',
      tags: ['System'],
      responses: { 200: { description: 'Operational', schema: Status } },
    },
    handle: async (req, deps) => {
      const healthy = await checkHealth(deps);
      const body: LazyOutput<typeof Status> = { status: healthy ? 'ok' : 'degraded', time: req.now.toISOString() };
      return { status: healthy ? 200 : 503, body };
    },
  }),
  route({
    method: 'GET',
    path: '/maintenance/',
    auth: 'public',
    doc: {
      summary: 'Scheduled maintenance (no authentication)',
      tags: ['System'],
      responses: {
        200: { description: 'Maintenance windows', schema: Maintenance },
      },
    },
    handle: async () => {
      const body: LazyOutput<typeof Maintenance> = { maintenance: false, message: null, scheduled: [] };
      return ok(body);
    },
  }),
];
