import { createApi } from '../../shared/http/pipeline.js';
import type { UserGroupPorts } from '../../shared/runtime/user.js';
import { userRuntime } from '../../shared/runtime/user.js';
import { webhooksRuntime } from '../../shared/runtime/webhooks.js';
import { balanceRoutes } from './balances-routes.js';
import { userRoutes } from './routes.js';
import type { WebhookDeps } from './webhook-routes.js';
import { webhookRoutes } from './webhook-routes.js';

export const handler = createApi<UserGroupPorts & WebhookDeps>([...userRoutes, ...balanceRoutes, ...webhookRoutes], { ...userRuntime(), ...webhooksRuntime() });
