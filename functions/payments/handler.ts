import { createApi } from '../../shared/http/pipeline.js';
import { paymentsRuntime } from '../../shared/runtime/payments.js';
import { paymentRoutes } from './routes.js';

export const handler = createApi(paymentRoutes, paymentsRuntime());
