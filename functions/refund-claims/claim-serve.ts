import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { GatewayError, NotFoundError } from '../../shared/domain/errors.js';
import { errorResponse } from '../../shared/http/errors.js';
import type { ClientRateLimiter } from '../../shared/http/client-rate-limit.js';
import type { ClaimView } from '../../shared/usecases/refunds/claim.js';
import { readClaim, submitClaim } from '../../shared/usecases/refunds/claim.js';
import type { RefundsDeps } from '../../shared/usecases/refunds/ports.js';
import type { Locale } from '../../shared/http/public-pages.js';
import { fill, htmlAnswers, negotiate } from '../../shared/http/public-pages.js';
import type { ClaimMessages } from './claim-i18n.js';
import { CLAIM_MESSAGES } from './claim-i18n.js';
import { CLAIM_CONTENT_SECURITY_POLICY, claimMessagePage, claimPage } from './claim-page.js';

/**
 * The refund claim page (issue 27), public, in a Lambda of its own (it writes: the address, once): `GET
 * /refund-claims/{token}` shows it, `POST` with the form's fields sets the address and answers 303 back to the page
 * (a reload never posts twice). A refused submission shows the form again with what was entered and why (400, 422);
 * a claim no longer open shows its state (409). Rate limited per client address, like the checkout.
 */

const PAGE = /^\/refund-claims\/([^/]+)\/?$/;
/** The form's fields are at most 255 characters each. */
const MAX_BODY = 4096;

const html = htmlAnswers(CLAIM_CONTENT_SECURITY_POLICY);

export interface ClaimPageDeps {
  readonly refunds: Pick<RefundsDeps, 'refunds' | 'fees' | 'served' | 'payouts'>;
  readonly limiter: ClientRateLimiter;
}

function formOf(event: APIGatewayProxyEventV2): URLSearchParams | null {
  const raw = event.body ?? '';
  const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  return text.length > MAX_BODY ? null : new URLSearchParams(text);
}

/** The customer's words for a refused submission. */
function refusalText(error: GatewayError, view: ClaimView, t: ClaimMessages): string {
  const details = error.details as Record<string, unknown>;
  switch (error.code) {
    case 'invalid_request':
      return 'address_confirmation' in details ? t.mismatch : t.addressMissing;
    case 'invalid_address':
      return /memo|tag/i.test(error.message) ? t.memoInvalid : fill(t.invalidAddress, { network: view.networkName });
    case 'below_minimum':
      return fill(t.belowMinimum, { minimum: String(details.minimum ?? ''), token: view.token });
    default:
      return t.alreadyClosed;
  }
}

export async function serveClaim(event: APIGatewayProxyEventV2, deps: ClaimPageDeps, now: Date): Promise<APIGatewayProxyStructuredResultV2> {
  const method = event.requestContext.http.method;
  const requestId = event.requestContext.requestId;
  const locale: Locale = negotiate(event.headers['accept-language'], event.queryStringParameters?.lang);
  const t = CLAIM_MESSAGES[locale];
  const token = PAGE.exec(event.rawPath)?.[1];
  const notFound = () => html(404, claimMessagePage(locale, t.notFoundTitle, t.notFoundText));
  if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') {
    return html(405, claimMessagePage(locale, t.notFoundTitle, new GatewayError('method_not_allowed').message), { Allow: 'GET, HEAD, POST' });
  }
  const wait = deps.limiter.take(event.requestContext.http.sourceIp, now.getTime());
  if (wait > 0) return html(429, claimMessagePage(locale, t.tooManyTitle, t.tooManyText), { 'Retry-After': String(wait) });
  if (token === undefined) return notFound();
  const action = `/refund-claims/${token}${locale === 'en' && !event.queryStringParameters?.lang ? '' : `?lang=${locale}`}`;
  try {
    const view = await readClaim(token, now, deps.refunds);
    if (method !== 'POST') return html(200, claimPage({ view, locale, action }));
    const form = formOf(event);
    const entered = { address: form?.get('address') ?? '', confirmation: form?.get('address_confirmation') ?? '', memo: form?.get('memo') ?? '' };
    try {
      await submitClaim(token, entered, now, deps.refunds);
      return html(303, '', { Location: action });
    } catch (error) {
      if (!(error instanceof GatewayError) || error instanceof NotFoundError) throw error;
      // A claim no longer open (set by an earlier submission, expired, cancelled): its state as it is now.
      const current = error.code === 'invalid_state' ? await readClaim(token, now, deps.refunds) : view;
      const refusal = { ...entered, error: refusalText(error, current, t) };
      return html(error.status, claimPage({ view: current, locale, action, form: current.state === 'open' ? refusal : undefined }));
    }
  } catch (error) {
    if (error instanceof NotFoundError) return notFound();
    const answer = errorResponse(error, null, requestId); // logs it once
    return html(answer.statusCode, claimMessagePage(locale, t.unavailableTitle, fill(t.unavailableText, { reference: requestId })));
  }
}
