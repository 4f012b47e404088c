import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { config } from '../../shared/config/config.js';
import { clientRateLimiter } from '../../shared/http/client-rate-limit.js';
import { createApi } from '../../shared/http/pipeline.js';
import { refundsRuntime } from '../../shared/runtime/refunds.js';
import { isClaimPath, serveClaim } from './claim-serve.js';
import { refundRoutes } from './routes.js';

const runtime = refundsRuntime();
const api = createApi(refundRoutes, runtime);
/** The public claim page (`/refund-claims/...`), limited per client address as the checkout is. */
const claims = { refunds: runtime, limiter: clientRateLimiter(config().CHECKOUT_REQUESTS_PER_MINUTE) };

export const handler = (event: APIGatewayProxyEventV2, context: Context): Promise<APIGatewayProxyStructuredResultV2> =>
  isClaimPath(event.rawPath) ? serveClaim(event, claims, new Date()) : api(event, context);
