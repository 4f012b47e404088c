import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { config } from '../../shared/config/config.js';
import { clientRateLimiter } from '../../shared/http/client-rate-limit.js';
import { paymentLinksRuntime } from '../../shared/runtime/payment-links.js';
import { serveLinkPage } from './link-serve.js';

/** The public payment link page (`/pay/...`), limited per client address as the checkout is. */
const pages = { links: paymentLinksRuntime(), limiter: clientRateLimiter(config().CHECKOUT_REQUESTS_PER_MINUTE) };

export const handler = (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => serveLinkPage(event, pages, new Date());
