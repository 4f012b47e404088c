import { createApi } from '../../shared/http/pipeline.js';
import { withdrawalsRuntime } from '../../shared/runtime/withdrawals.js';
import { withdrawalRoutes } from './routes.js';

export const handler = createApi(withdrawalRoutes, withdrawalsRuntime());
