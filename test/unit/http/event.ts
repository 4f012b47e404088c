import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

/** An API Gateway HTTP API v2 event as API Gateway builds it, for handler tests without a server. */
export function apiEvent(
  method: string,
  rawPath: string,
  options: { body?: string; headers?: Record<string, string>; base64?: boolean; query?: Record<string, string>; sourceIp?: string } = {},
): APIGatewayProxyEventV2 {
  const rawQueryString = new URLSearchParams(options.query ?? {}).toString();
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString,
    headers: Object.fromEntries(Object.entries(options.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
    queryStringParameters: options.query,
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: options.sourceIp ?? '203.0.113.7', userAgent: 'test' },
      requestId: 'req-1',
      routeKey: '$default',
      stage: '$default',
      time: '',
      timeEpoch: 0,
    },
    body: options.body === undefined ? undefined : options.base64 ? Buffer.from(options.body).toString('base64') : options.body,
    isBase64Encoded: options.base64 ?? false,
  };
}

export const lambdaContext = { awsRequestId: 'ctx', functionName: 'test', getRemainingTimeInMillis: () => 30_000 } as unknown as Context;
