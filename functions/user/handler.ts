import { createApi } from '../../shared/http/pipeline.js';
import { webhooksRuntime } from '../../shared/runtime/webhooks.js';
import { balanceRoutes } from './balances-routes.js';
import { userRoutes } from './routes.js';
import { webhookRoutes } from './webhook-routes.js';

export const handler = createApi([...userRoutes, ...balanceRoutes, ...webhookRoutes], { ...webhooksRuntime() });
