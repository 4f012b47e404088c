import { createApi } from '../../shared/http/pipeline.js';
import { refundsRuntime } from '../../shared/runtime/refunds.js';
import { refundRoutes } from './routes.js';

export const handler = createApi(refundRoutes, refundsRuntime());
