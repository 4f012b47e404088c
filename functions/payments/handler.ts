import { createApi } from '../../shared/http/pipeline.js';
import { paymentRoutes } from './routes.js';

export const handler = createApi(paymentRoutes, {});
