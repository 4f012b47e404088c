import { z } from 'zod';
import { ok, route } from '../../shared/http/route.js';
import { checkHealth } from '../../shared/usecases/system/health.js';

export const systemRoutes = [
  route({
    method: 'GET',
    path: '/status/',
    auth: 'public',
    doc: {
      summary: 'Service status (no authentication)',
      description: 'Answers `ok` when the table answers; 503 with `degraded` otherwise.',
      tags: ['System'],
      responses: { 200: { description: 'Operational', schema: z.object({ status: z.enum(['ok', 'degraded']), time: z.string() }) } },
    },
    handle: async (req) => {
      const healthy = await checkHealth();
      return { status: healthy ? 200 : 503, body: { status: healthy ? 'ok' : 'degraded', time: req.now.toISOString() } };
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
        200: {
          description: 'Maintenance windows',
          schema: z.object({ maintenance: z.boolean(), message: z.string().nullable(), scheduled: z.array(z.object({ starts_at: z.string(), ends_at: z.string(), description: z.string() })) }),
        },
      },
    },
    handle: async () => ok({ maintenance: false, message: null, scheduled: [] }),
  }),
];
