import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { CheckoutView } from '../../shared/domain/checkout.js';
import { GatewayError, NotFoundError } from '../../shared/domain/errors.js';
import { errorResponse } from '../../shared/http/errors.js';
import type { CheckoutRuntime } from '../../shared/runtime/checkout.js';
import { readCheckout } from '../../shared/usecases/checkout/read-checkout.js';
import { qrDataUrl } from '../../shared/usecases/qr.js';
import { CONTENT_SECURITY_POLICY } from './assets.js';
import type { Locale } from './i18n.js';
import { fill, MESSAGES, negotiate } from './i18n.js';
import { checkoutPage, messagePage } from './page.js';

/**
 * The hosted checkout, its own Lambda: `GET /checkout/{id}` (the page) and `GET /checkout/{id}/status` (what the
 * page shows, as JSON, for its live updates). No credentials, no writes: one cached lookup and one BatchGetItem
 * per request, rate limited per client address in memory. Anything else under `/checkout` is the 404 page.
 */

const PAGE = /^\/checkout\/([^/]+)\/?$/;
const STATUS = /^\/checkout\/([^/]+)\/status\/?$/;

const COMMON = { 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', 'Cache-Control': 'no-store' };
const htmlHeaders = {
  ...COMMON,
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Frame-Options': 'DENY',
  Vary: 'Accept-Language',
};
const jsonHeaders = { ...COMMON, 'Content-Type': 'application/json; charset=utf-8', 'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'" };

const html = (statusCode: number, body: string, extra: Record<string, string> = {}): APIGatewayProxyStructuredResultV2 => ({
  statusCode,
  headers: { ...htmlHeaders, ...extra },
  body,
});
const json = (statusCode: number, body: string, extra: Record<string, string> = {}): APIGatewayProxyStructuredResultV2 => ({
  statusCode,
  headers: { ...jsonHeaders, ...extra },
  body,
});

/** The status endpoint's answer: only what the page shows (no tenant, no callback URL, no webhook data). */
export function statusBody(view: CheckoutView, qr: string | null, now: Date): Record<string, unknown> {
  return {
    state: view.state,
    merchant_name: view.merchantName,
    order_description: view.orderDescription,
    order_id: view.orderId,
    price_amount: view.priceAmount,
    price_currency: view.priceCurrency,
    currency: view.currency,
    token: view.token,
    network: view.networkName,
    standard: view.standard,
    amount: view.amount,
    paid: view.paid,
    due: view.due,
    address: view.address,
    payment_uri: view.paymentUri,
    qr,
    confirmations: view.confirmations,
    confirmations_required: view.confirmationsRequired,
    expiry_time: view.expiryTime,
    success_url: view.successUrl,
    cancel_url: view.cancelUrl,
    server_time: now.toISOString(),
  };
}

/**
 * QR codes by payment URI: a URI changes only when what is due does, and the page asks every 3 s. A few thousand
 * entries (about 4 KB each) bound the memory of a Lambda instance.
 */
const QR_CACHE_SIZE = 2_000;
const qrCodes = new Map<string, Promise<string>>();
function qrOf(uri: string | null): Promise<string | null> {
  if (uri === null) return Promise.resolve(null);
  const known = qrCodes.get(uri);
  if (known) return known;
  if (qrCodes.size >= QR_CACHE_SIZE) qrCodes.delete(qrCodes.keys().next().value as string);
  const made = qrDataUrl(uri);
  qrCodes.set(uri, made);
  made.catch(() => qrCodes.delete(uri));
  return made;
}

function jsonError(error: unknown, requestId: string): APIGatewayProxyStructuredResultV2 {
  const answer = errorResponse(error, null, requestId);
  return json(answer.statusCode, answer.body, answer.headers);
}

export async function serveCheckout(event: APIGatewayProxyEventV2, runtime: CheckoutRuntime, now: Date): Promise<APIGatewayProxyStructuredResultV2> {
  const path = event.rawPath;
  const method = event.requestContext.http.method;
  const requestId = event.requestContext.requestId;
  const statusId = STATUS.exec(path)?.[1];
  const pageId = statusId === undefined ? PAGE.exec(path)?.[1] : undefined;
  const locale: Locale = negotiate(event.headers['accept-language'], event.queryStringParameters?.lang);
  const t = MESSAGES[locale];
  const notFound = () => html(404, messagePage(locale, t.notFoundTitle, t.notFoundText));

  if (method !== 'GET' && method !== 'HEAD') {
    const refusal = new GatewayError('method_not_allowed');
    return statusId !== undefined ? jsonError(refusal, requestId) : html(405, messagePage(locale, t.notFoundTitle, refusal.message), { Allow: 'GET, HEAD' });
  }
  const wait = runtime.limiter.take(event.requestContext.http.sourceIp, now.getTime());
  if (wait > 0) {
    const retry = { 'Retry-After': String(wait) };
    if (statusId !== undefined) {
      const refusal = jsonError(new GatewayError('rate_limit_exceeded', `Too many requests; retry in ${wait} seconds.`, { retry_after: wait }), requestId);
      return { ...refusal, headers: { ...refusal.headers, ...retry } };
    }
    return html(429, messagePage(locale, t.tooManyTitle, t.tooManyText), retry);
  }
  try {
    if (statusId !== undefined) {
      const view = await readCheckout(statusId, runtime);
      const qr = await qrOf(view.paymentUri);
      return json(200, JSON.stringify(statusBody(view, qr, now)));
    }
    if (pageId === undefined) return notFound();
    const view = await readCheckout(pageId, runtime);
    const qr = await qrOf(view.paymentUri);
    return html(200, checkoutPage({ view, locale, statusUrl: `/checkout/${pageId}/status`, qr, now }));
  } catch (error) {
    if (statusId !== undefined) return jsonError(error, requestId);
    if (error instanceof NotFoundError) return notFound();
    const answer = errorResponse(error, null, requestId); // logs it once
    return html(answer.statusCode, messagePage(locale, t.unavailableTitle, fill(t.unavailableText, { reference: requestId })));
  }
}
