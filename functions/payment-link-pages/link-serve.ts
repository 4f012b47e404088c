import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { ConflictError, GatewayError } from '../../shared/domain/errors.js';
import type { PaymentLinkState } from '../../shared/domain/payment-links.js';
import { linkStatus } from '../../shared/domain/payment-links.js';
import type { ClientRateLimiter } from '../../shared/http/client-rate-limit.js';
import { errorResponse } from '../../shared/http/errors.js';
import type { Locale } from '../../shared/http/public-pages.js';
import { fill, htmlAnswers, negotiate } from '../../shared/http/public-pages.js';
import type { PaymentLinksDeps } from '../../shared/usecases/payment-links/ports.js';
import { createPaymentFromLink, readLinkPage } from '../../shared/usecases/payment-links/visit.js';
import type { LinkMessages } from './link-i18n.js';
import { LINK_MESSAGES } from './link-i18n.js';
import { closedLinkPage, LINK_CONTENT_SECURITY_POLICY, linkMessagePage, linkPage } from './link-page.js';

/**
 * The public payment link page (issue 30), in a Lambda of its own (it writes: the payments its visitors open):
 * `GET /pay/{slug}` shows the link (its price, the currencies to choose from, the amount field where the payer enters
 * it); `POST` with the form's fields opens a fresh payment and answers 303 to that payment's checkout page. Only a
 * POST opens a payment: a GET (what crawlers and link previews send) never does. A link not active shows why, with no
 * form (200 on GET, 409 on POST). Rate limited per client address, like the checkout, and throttled by its route.
 */

const PAGE = /^\/pay\/([A-Za-z0-9_-]{1,64})\/?$/;
/** The form's fields are a currency code and an amount. */
const MAX_BODY = 1024;

const html = htmlAnswers(LINK_CONTENT_SECURITY_POLICY);

export interface LinkPageDeps {
  readonly links: PaymentLinksDeps;
  readonly limiter: ClientRateLimiter;
}

function formOf(event: APIGatewayProxyEventV2): URLSearchParams {
  const raw = event.body ?? '';
  const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  return new URLSearchParams(text.length > MAX_BODY ? '' : text);
}

/** The payer's words for a refused submission. */
function refusalText(error: GatewayError, t: LinkMessages): string {
  const fields = error.details as Record<string, unknown>;
  const first = (name: string) => (Array.isArray(fields[name]) ? String((fields[name] as unknown[])[0] ?? '') : '');
  if (error.code === 'invalid_request' && 'currency' in fields) return t.chooseOne;
  if (error.code === 'invalid_request' && 'amount' in fields) return `${t.badAmount} ${first('amount')}`.trim();
  const reason = error.code === 'invalid_request' ? first('price_amount') || error.message : error.message;
  return fill(t.cannotPay, { reason });
}

export async function serveLinkPage(event: APIGatewayProxyEventV2, deps: LinkPageDeps, now: Date): Promise<APIGatewayProxyStructuredResultV2> {
  const method = event.requestContext.http.method;
  const requestId = event.requestContext.requestId;
  const locale: Locale = negotiate(event.headers['accept-language'], event.queryStringParameters?.lang);
  const t = LINK_MESSAGES[locale];
  const slug = PAGE.exec(event.rawPath)?.[1];
  const notFound = () => html(404, linkMessagePage(locale, t.notFoundTitle, t.notFoundText));
  if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') {
    return html(405, linkMessagePage(locale, t.notFoundTitle, new GatewayError('method_not_allowed').message), { Allow: 'GET, HEAD, POST' });
  }
  const wait = deps.limiter.take(event.requestContext.http.sourceIp, now.getTime());
  if (wait > 0) return html(429, linkMessagePage(locale, t.tooManyTitle, t.tooManyText), { 'Retry-After': String(wait) });
  if (slug === undefined) return notFound();
  const lang = locale === 'en' && !event.queryStringParameters?.lang ? '' : `?lang=${locale}`;
  const action = `/pay/${slug}${lang}`;
  const closed = (link: PaymentLinkState, statusCode: number) => {
    const status = linkStatus(link, now);
    return status === 'active' ? null : html(statusCode, closedLinkPage(link, status, locale));
  };
  try {
    const link = await readLinkPage(slug, deps.links);
    if (!link) return notFound();
    if (method !== 'POST') return closed(link, 200) ?? html(200, linkPage({ link, locale, action }));
    const shut = closed(link, 409);
    if (shut) return shut;
    const form = formOf(event);
    const visit = { currency: form.get('currency') ?? '', amount: form.get('amount') ?? '' };
    try {
      const payment = await createPaymentFromLink(link, visit, now, deps.links);
      return html(303, '', { Location: `/checkout/${payment.checkoutId}${lang}` });
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      if (error instanceof ConflictError) {
        // Deactivated or filled meanwhile: the page as the link is now.
        const current = (await readLinkPage(slug, deps.links)) ?? link;
        const now409 = closed(current, 409);
        if (now409) return now409;
      }
      return html(error.status, linkPage({ link, locale, action, form: { ...visit, error: refusalText(error, t) } }));
    }
  } catch (error) {
    const answer = errorResponse(error, null, requestId); // logs it once
    return html(answer.statusCode, linkMessagePage(locale, t.unavailableTitle, fill(t.unavailableText, { reference: requestId })));
  }
}
