import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { checkoutRuntime } from '../../shared/runtime/checkout.js';
import { serveCheckout } from './serve.js';

const runtime = checkoutRuntime();

export const handler = (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => serveCheckout(event, runtime, new Date());
