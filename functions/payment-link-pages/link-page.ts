import { createHash } from 'node:crypto';
import { findCurrency, NETWORKS } from '../../shared/domain/currencies.js';
import type { PaymentLinkState, PaymentLinkStatus } from '../../shared/domain/payment-links.js';
import type { Locale } from '../../shared/http/public-pages.js';
import { escapeHtml as e, fill, formatPrice, messageShell, PAGE_STYLE, pageShell } from '../../shared/http/public-pages.js';
import type { LinkMessages } from './link-i18n.js';
import { LINK_MESSAGES } from './link-i18n.js';

/**
 * The payment link page, rendered on the server with no script: the link's name and price, and a POST form to its
 * own URL where the payer picks a currency (radio buttons; one currency: none to pick) and, where the link allows
 * it, enters the amount. The checkout's style, languages and headers; its own policy: no script at all, forms only
 * to its own origin. A link that is not active shows why, with no form.
 */

export const LINK_STYLE = `${PAGE_STYLE}.error{margin:12px 0 0;padding:10px 14px;border-radius:8px;background:#fef2f2;color:var(--bad);font-weight:600}
fieldset{border:0;margin:0;padding:0}legend{font-weight:600;margin:0 0 8px}.choice{display:flex;gap:10px;align-items:center;padding:10px 12px;margin:6px 0;border:1px solid var(--line);border-radius:8px}
form button{width:100%;margin-top:16px}.note{margin:8px 0 0;color:var(--muted);font-size:.9rem}
`;

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** No script; its one inline style by hash; forms post only to the page's own origin; no frames, images or base URL. */
export const LINK_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src ${sha256(LINK_STYLE)}`,
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** What the payer entered, shown back with the reason of a refused submission. */
export interface LinkFormInput {
  readonly currency: string;
  readonly amount: string;
  readonly error: string;
}

export interface LinkPageInput {
  readonly link: PaymentLinkState;
  readonly locale: Locale;
  /** The page's own path: the form posts to it. */
  readonly action: string;
  readonly form?: LinkFormInput | undefined;
}

const currencyLabel = (code: string, t: LinkMessages): string => {
  const c = findCurrency(code);
  return c ? fill(t.tokenOn, { token: c.token, network: NETWORKS[c.network].name }) : code;
};

function amountField(link: PaymentLinkState, locale: Locale, t: LinkMessages, value: string): string {
  const money = (v: string) => formatPrice(v, link.priceCurrency, locale);
  const { minAmount: min, maxAmount: max } = link;
  const bounds =
    min !== null && max !== null
      ? fill(t.amountBounds, { min: money(min), max: money(max) })
      : min !== null
        ? fill(t.amountFrom, { min: money(min) })
        : max !== null
          ? fill(t.amountUpTo, { max: money(max) })
          : '';
  return `<label for="amount">${e(fill(t.amount, { currency: link.priceCurrency }))}</label><div class="row"><input id="amount" name="amount" required inputmode="decimal" autocomplete="off" maxlength="16" value="${e(value)}"></div>${
    bounds ? `<p class="note">${e(bounds)}</p>` : ''
  }`;
}

export function linkPage({ link, locale, action, form }: LinkPageInput): string {
  const t = LINK_MESSAGES[locale];
  const only = link.currencies.length === 1 ? link.currencies[0] : undefined;
  const chosen = form?.currency ?? only ?? '';
  const choice =
    only !== undefined
      ? `<input type="hidden" name="currency" value="${e(only)}"><p id="currency-choice" class="order">${e(fill(t.payWith, { currency: currencyLabel(only, t) }))}</p>`
      : `<fieldset id="currency-choice"><legend>${e(t.chooseCurrency)}</legend>${link.currencies
          .map(
            (code) =>
              `<label class="choice"><input type="radio" name="currency" value="${e(code)}" required${code === chosen ? ' checked' : ''}> ${e(currencyLabel(code, t))}</label>`,
          )
          .join('')}</fieldset>`;
  const price =
    link.priceAmount === null
      ? ''
      : `<dl class="sums"><dt>${e(t.price)}</dt><dd id="price">${e(formatPrice(link.priceAmount, link.priceCurrency, locale))}</dd></dl>`;
  const body = `<main data-state="active" data-locale="${locale}">
<section class="card" aria-labelledby="title">
<h1 id="title">${e(link.name)}</h1>
${link.description ? `<p class="order">${e(link.description)}</p>` : ''}
${price}
</section>
<section class="card">
<form method="post" action="${e(action)}">
${link.allowCustomAmount ? amountField(link, locale, t, form?.amount ?? '') : ''}
${choice}
${form ? `<p id="error" class="error" role="alert">${e(form.error)}</p>` : ''}
<p class="note">${e(t.note)}</p>
<button type="submit" id="pay">${e(t.pay)}</button>
</form>
</section>
</main>`;
  return pageShell(locale, link.name, LINK_STYLE, body);
}

/** A link that opens no payment: why, and nothing to submit. */
export function closedLinkPage(link: PaymentLinkState, status: Exclude<PaymentLinkStatus, 'active'>, locale: Locale): string {
  const t = LINK_MESSAGES[locale];
  const [title, text] =
    status === 'inactive' ? [t.inactiveTitle, t.inactiveText] : status === 'expired' ? [t.expiredTitle, t.expiredText] : [t.completedTitle, t.completedText];
  const body = `<main data-state="${status}" data-locale="${locale}">
<section class="card" aria-labelledby="title">
<h1 id="title">${e(title)}</h1>
<p class="order">${e(link.name)}</p>
<p id="status" class="status" role="status">${e(text)}</p>
</section>
</main>`;
  return pageShell(locale, title, LINK_STYLE, body);
}

/** A page with a heading and one sentence: unknown links (404), too many requests (429), failures (500). */
export const linkMessagePage = (locale: Locale, title: string, text: string): string => messageShell(locale, title, LINK_STYLE, text);
