import type { CheckoutView } from '../../shared/domain/checkout.js';
import { isPayable } from '../../shared/domain/checkout.js';
import { isPositive } from '../../shared/domain/money.js';
import { escapeHtml, messageShell, pageShell } from '../../shared/http/public-pages.js';
import { SCRIPT, STYLE } from './assets.js';
import type { Locale, Messages } from './i18n.js';
import { MESSAGES, fill, formatAmount, formatDate, formatPrice } from './i18n.js';

/**
 * The checkout page, rendered on the server: everything a customer needs to pay (amount, address, network,
 * QR code, expiry) is in the HTML, so it works without JavaScript; the inline script adds the copy buttons, the
 * countdown and the live status.
 */

export { escapeHtml };

/** The page's status line for a view, in the page's language. */
export function statusText(view: CheckoutView, t: Messages, locale: Locale): string {
  switch (view.state) {
    case 'waiting':
      return t.waiting;
    case 'seen':
      return fill(t.seen, { confirmations: view.confirmations, required: view.confirmationsRequired });
    case 'partially_paid':
      return fill(t.partiallyPaid, { due: formatAmount(view.due, locale), token: view.token });
    case 'paid':
      return t.paid;
    case 'expired':
      return t.expired;
    case 'cancelled':
      return t.cancelled;
    case 'failed':
      return t.failed;
  }
}

/** "USDT on Polygon PoS (ERC-20)"; a native coin without a standard. */
export function assetLabel(view: Pick<CheckoutView, 'token' | 'networkName' | 'standard'>, t: Messages): string {
  const on = fill(t.tokenOn, { token: view.token, network: view.networkName });
  return view.standard ? `${on} (${view.standard})` : on;
}

const shell = (locale: Locale, title: string, body: string): string => pageShell(locale, title, STYLE, body);

export interface PageInput {
  readonly view: CheckoutView;
  readonly locale: Locale;
  /** The status endpoint, relative to the page. */
  readonly statusUrl: string;
  /** The QR code of `view.paymentUri`, as an image data URL; null when nothing is due. */
  readonly qr: string | null;
  readonly now: Date;
}

export function checkoutPage({ view, locale, statusUrl, qr, now }: PageInput): string {
  const t = MESSAGES[locale];
  const e = escapeHtml;
  const merchant = view.merchantName || t.payment;
  const asset = assetLabel(view, t);
  const showPay = isPayable(view.state) && view.paymentUri !== null && qr !== null;
  const paidSomething = isPositive(view.paid);
  const back = view.successUrl
    ? { id: 'success-link', href: view.successUrl, text: t.backToMerchant }
    : view.cancelUrl
      ? { id: 'cancel-link', href: view.cancelUrl, text: t.cancelAndReturn }
      : null;
  const messages = JSON.stringify(t);
  const body = `<main data-status-url="${e(statusUrl)}" data-state="${view.state}" data-expiry="${e(view.expiryTime)}" data-now="${now.toISOString()}" data-locale="${locale}" data-token="${e(view.token)}" data-merchant="${e(merchant)}" data-messages="${e(messages)}">
<section class="card" aria-labelledby="title">
<p class="merchant">${e(merchant)}</p>
<h1 id="title">${e(view.orderDescription ?? t.payment)}</h1>
<p class="price" aria-label="${e(t.price)}">${e(formatPrice(view.priceAmount, view.priceCurrency, locale))}</p>
${view.orderId ? `<p class="order">${e(fill(t.order, { order: view.orderId }))}</p>` : ''}
</section>
<section class="card">
<p id="status" class="status" role="status" aria-live="polite" data-state="${view.state}">${e(statusText(view, t, locale))}</p>
<p id="offline" class="timer" hidden>${e(t.offline)}</p>
<dl id="sums" class="sums"${paidSomething ? '' : ' hidden'}>
<dt>${e(t.received)}</dt><dd id="received">${e(`${formatAmount(view.paid, locale)} ${view.token}`)}</dd>
<dt>${e(t.stillDue)}</dt><dd id="due">${e(`${formatAmount(view.due, locale)} ${view.token}`)}</dd>
</dl>
<div id="pay"${showPay ? '' : ' hidden'}>
<p class="asset">${e(asset)}</p>
<p class="warning">${e(fill(t.warning, { asset }))}</p>
<label for="amount">${e(t.sendExactly)} (${e(view.token)})</label>
<div class="row"><input id="amount" readonly value="${e(view.due)}" inputmode="decimal"><button type="button" data-copy="amount" aria-label="${e(t.copyAmount)}" hidden>${e(t.copy)}</button></div>
<label for="address">${e(t.toAddress)}</label>
<div class="row"><textarea id="address" readonly rows="2" spellcheck="false">${e(view.address)}</textarea><button type="button" data-copy="address" aria-label="${e(t.copyAddress)}" hidden>${e(t.copy)}</button></div>
<p class="qr"><img id="qr" src="${e(qr ?? '')}" alt="${e(fill(t.qrAlt, { amount: view.due, token: view.token, address: view.address }))}" width="240" height="240"></p>
<a id="wallet-link" class="button wallet" href="${e(view.paymentUri ?? '')}">${e(t.payInWallet)}</a>
<p id="timer" class="timer">${e(t.timeLeft)}: <strong id="countdown">–</strong> · <span id="expires-at">${e(fill(t.expiresAt, { date: formatDate(view.expiryTime, locale) }))}</span></p>
</div>
<p id="links" class="links"${back ? '' : ' hidden'}>${back ? `<a id="${back.id}" href="${e(back.href)}">${e(fill(back.text, { merchant }))}</a>` : ''}</p>
<p id="announce" class="live" aria-live="polite"></p>
</section>
</main>
<script>${SCRIPT}</script>`;
  return shell(locale, fill(t.title, { merchant }), body);
}

/** A page with a heading and one sentence: unknown checkout ids (404) and too many requests (429). */
export function messagePage(locale: Locale, title: string, text: string): string {
  return messageShell(locale, title, STYLE, text);
}
