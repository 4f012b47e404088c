import { createApi } from '../../shared/http/pipeline.js';
import { paymentLinksRuntime } from '../../shared/runtime/payment-links.js';
import { paymentLinkRoutes } from './routes.js';

export const handler = createApi(paymentLinkRoutes, paymentLinksRuntime());
