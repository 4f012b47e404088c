import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { config } from '../../shared/config/config.js';
import { clientRateLimiter } from '../../shared/http/client-rate-limit.js';
import { refundsRuntime } from '../../shared/runtime/refunds.js';
import { serveClaim } from './claim-serve.js';

/** The public refund claim page (`/refund-claims/...`), limited per client address as the checkout is. */
const claims = { refunds: refundsRuntime(), limiter: clientRateLimiter(config().CHECKOUT_REQUESTS_PER_MINUTE) };

export const handler = (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => serveClaim(event, claims, new Date());
