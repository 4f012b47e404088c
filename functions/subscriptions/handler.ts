import { createApi } from '../../shared/http/pipeline.js';
import { subscriptionsRuntime } from '../../shared/runtime/subscriptions.js';
import { subscriptionRoutes } from './routes.js';

export const handler = createApi(subscriptionRoutes, subscriptionsRuntime());
