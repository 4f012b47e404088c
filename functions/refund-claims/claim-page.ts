import { createHash } from 'node:crypto';
import type { ClaimView } from '../../shared/usecases/refunds/claim.js';
import type { Locale } from '../../shared/http/public-pages.js';
import { escapeHtml as e, fill, formatAmount, formatDate, messageShell, PAGE_STYLE, pageShell } from '../../shared/http/public-pages.js';
import type { ClaimMessages } from './claim-i18n.js';
import { CLAIM_MESSAGES } from './claim-i18n.js';

/**
 * The refund claim page, rendered on the server with no script: the refund's facts, and while the claim is open a
 * POST form to its own URL asking for the address twice (and the memo where the network needs one). The checkout's
 * style, languages and headers; its own policy: no script at all, forms only to its own origin.
 */

export const CLAIM_STYLE = `${PAGE_STYLE}.error{margin:12px 0 0;padding:10px 14px;border-radius:8px;background:#fef2f2;color:var(--bad);font-weight:600}
.status[data-state=set]{background:#ecfdf5;color:var(--ok)}.status[data-state=closed]{background:#fef2f2;color:var(--bad)}
form .row{margin:0}form button{width:100%;margin-top:16px}.note{margin:8px 0 0;color:var(--muted);font-size:.9rem}
`;

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** No script; its one inline style by hash; forms post only to the page's own origin; no frames, images or base URL. */
export const CLAIM_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src ${sha256(CLAIM_STYLE)}`,
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The page's status line for a view. */
export function claimStatusText(view: Pick<ClaimView, 'state' | 'status'>, t: ClaimMessages): string {
  switch (view.state) {
    case 'open':
      return t.open;
    case 'set':
      return view.status === 'completed' ? t.completed : view.status === 'processing' ? t.processing : t.pending;
    case 'expired':
      return t.expired;
    case 'cancelled':
      return t.cancelled;
    case 'closed':
      return t.closed;
  }
}

const shell = (locale: Locale, title: string, body: string): string => pageShell(locale, title, CLAIM_STYLE, body);

/** What the customer entered, shown back with the error of a refused submission. */
export interface ClaimFormInput {
  readonly address: string;
  readonly confirmation: string;
  readonly memo: string;
  readonly error: string;
}

export interface ClaimPageInput {
  readonly view: ClaimView;
  readonly locale: Locale;
  /** The page's own path: the form posts to it. */
  readonly action: string;
  readonly form?: ClaimFormInput | undefined;
}

export function claimPage({ view, locale, action, form }: ClaimPageInput): string {
  const t = CLAIM_MESSAGES[locale];
  const asset = fill(t.tokenOn, { token: view.token, network: view.networkName }) + (view.standard ? ` (${view.standard})` : '');
  const amount = (value: string) => e(`${formatAmount(value, locale)} ${view.token}`);
  const open = view.state === 'open';
  const facts = `<dl class="sums">
<dt>${e(t.refund)}</dt><dd id="amount">${amount(view.amount)}</dd>
<dt>${e(t.networkFee)}</dt><dd id="network-fee">${amount(view.networkFee)}</dd>
<dt>${e(t.youReceive)}</dt><dd id="amount-sent">${amount(view.amountSent)}</dd>
</dl>`;
  const set =
    view.address === null
      ? ''
      : `<label for="address">${e(t.sentTo)}</label><div class="row"><textarea id="address" readonly rows="2" spellcheck="false">${e(view.address)}</textarea></div>${
          view.memo ? `<label for="memo">${e(t.memo)}</label><div class="row"><input id="memo" readonly value="${e(view.memo)}"></div>` : ''
        }${view.transactionHash ? `<p class="note">${e(t.transaction)}: <span id="transaction">${e(view.transactionHash)}</span></p>` : ''}`;
  const field = (id: string, label: string, value: string) =>
    `<label for="${id}">${e(label)}</label><div class="row"><input id="${id}" name="${id}" required autocomplete="off" autocapitalize="off" spellcheck="false" maxlength="255" value="${e(value)}"></div>`;
  const claimForm = open
    ? `<form method="post" action="${e(action)}">
<p class="warning">${e(fill(t.warning, { network: view.networkName, token: view.token }))}</p>
${field('address', t.address, form?.address ?? '')}
${field('address_confirmation', t.confirmation, form?.confirmation ?? '')}
${view.memoRequired ? field('memo', t.memo, form?.memo ?? '') : ''}
${form ? `<p id="error" class="error" role="alert">${e(form.error)}</p>` : ''}
<p class="note">${e(t.once)}${view.claimExpiresAt ? ` ${e(fill(t.enterBy, { date: formatDate(view.claimExpiresAt, locale) }))}` : ''}</p>
<button type="submit" id="submit">${e(t.submit)}</button>
</form>`
    : '';
  const body = `<main data-state="${view.state}" data-status="${view.status}" data-locale="${locale}">
<section class="card" aria-labelledby="title">
<h1 id="title">${e(t.title)}</h1>
<p class="asset">${e(asset)}</p>
${open ? `<p class="order">${e(t.intro)}</p>` : ''}
${facts}
</section>
<section class="card">
<p id="status" class="status" role="status" data-state="${view.state}">${e(claimStatusText(view, t))}</p>
${set}
${claimForm}
</section>
</main>`;
  return shell(locale, t.title, body);
}

/** A page with a heading and one sentence: unknown claims (404), too many requests (429), failures (500). */
export function claimMessagePage(locale: Locale, title: string, text: string): string {
  return messageShell(locale, title, CLAIM_STYLE, text);
}
