import { createHash } from 'node:crypto';
import { PAGE_STYLE } from '../../shared/http/public-pages.js';

/**
 * The page's only style sheet and script, inlined and allowed by hash in the Content-Security-Policy: nothing is
 * loaded from anywhere, not even from the page's own origin. Both are fixed text; everything that varies comes
 * from the HTML (data attributes) and the status endpoint.
 */
/** The public pages' style sheet (shared/http/public-pages.ts). */
export const STYLE = PAGE_STYLE;

export const SCRIPT = `
(function () {
  'use strict';
  var root = document.querySelector('main[data-status-url]');
  if (!root) return;
  var t = JSON.parse(root.getAttribute('data-messages'));
  var locale = root.getAttribute('data-locale');
  var token = root.getAttribute('data-token');
  var merchant = root.getAttribute('data-merchant');
  var statusUrl = root.getAttribute('data-status-url');
  var state = root.getAttribute('data-state');
  var expiry = Date.parse(root.getAttribute('data-expiry'));
  var skew = Date.parse(root.getAttribute('data-now')) - Date.now();
  var $ = function (id) { return document.getElementById(id); };
  var fill = function (s, v) { return s.replace(/\\{(\\w+)\\}/g, function (w, k) { return k in v ? String(v[k]) : w; }); };
  var amount = function (a) {
    var scale = (a.split('.')[1] || '').length;
    try { return new Intl.NumberFormat(locale, { minimumFractionDigits: scale, maximumFractionDigits: scale }).format(a); } catch (e) { return a; }
  };
  var live = function (s) { return s === 'waiting' || s === 'seen' || s === 'partially_paid'; };
  var payable = live;

  document.querySelectorAll('button[data-copy]').forEach(function (b) {
    b.hidden = false;
    b.addEventListener('click', function () {
      var input = $(b.getAttribute('data-copy'));
      var done = function () {
        b.textContent = t.copied;
        $('announce').textContent = t.copied;
        setTimeout(function () { b.textContent = t.copy; }, 2000);
      };
      if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(input.value).then(done, function () { input.select(); });
      else { input.focus(); input.select(); try { document.execCommand('copy'); done(); } catch (e) {} }
    });
  });

  var expiresAt = $('expires-at');
  if (expiresAt) {
    try {
      expiresAt.textContent = fill(t.expiresAt, { date: new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' }).format(new Date(expiry)) });
    } catch (e) {}
  }

  var countdown = $('countdown');
  var tick = function () {
    if (!countdown) return;
    var left = Math.max(0, Math.floor((expiry - (Date.now() + skew)) / 1000));
    var h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), s = left % 60;
    var two = function (n) { return (n < 10 ? '0' : '') + n; };
    countdown.textContent = (h > 0 ? h + ':' + two(m) : String(m)) + ':' + two(s);
    countdown.setAttribute('data-seconds', String(left));
  };
  tick();
  var ticker = setInterval(tick, 1000);

  var statusText = function (v) {
    switch (v.state) {
      case 'seen': return fill(t.seen, { confirmations: v.confirmations, required: v.confirmations_required });
      case 'partially_paid': return fill(t.partiallyPaid, { due: amount(v.due), token: token });
      case 'paid': return t.paid;
      case 'expired': return t.expired;
      case 'cancelled': return t.cancelled;
      case 'failed': return t.failed;
      default: return t.waiting;
    }
  };

  var render = function (v) {
    state = v.state;
    root.setAttribute('data-state', v.state);
    var status = $('status');
    status.setAttribute('data-state', v.state);
    status.textContent = statusText(v);
    $('pay').hidden = !(payable(v.state) && v.payment_uri);
    if (v.payment_uri && v.payment_uri !== $('wallet-link').getAttribute('href')) {
      $('amount').value = v.due;
      $('qr').src = v.qr;
      $('qr').alt = fill(t.qrAlt, { amount: v.due, token: token, address: v.address });
      $('wallet-link').href = v.payment_uri;
    }
    $('received').textContent = amount(v.paid) + ' ' + token;
    $('due').textContent = amount(v.due) + ' ' + token;
    $('sums').hidden = v.paid === '0' || Number(v.paid) === 0;
    var links = $('links');
    links.textContent = '';
    var target = v.success_url ? [v.success_url, t.backToMerchant] : v.cancel_url ? [v.cancel_url, t.cancelAndReturn] : null;
    if (target) {
      var a = document.createElement('a');
      a.href = target[0];
      a.id = v.success_url ? 'success-link' : 'cancel-link';
      a.textContent = fill(target[1], { merchant: merchant });
      links.appendChild(a);
    }
    links.hidden = !target;
    if (!live(v.state)) { clearInterval(ticker); $('timer').hidden = true; }
  };

  var poll = function () {
    if (!live(state)) return;
    fetch(statusUrl, { headers: { accept: 'application/json' }, cache: 'no-store', credentials: 'omit' }).then(function (res) {
      if (res.status === 429) {
        var wait = Number(res.headers.get('retry-after')) || 10;
        setTimeout(poll, wait * 1000);
        return;
      }
      if (!res.ok) throw new Error(String(res.status));
      return res.json().then(function (v) {
        $('offline').hidden = true;
        skew = Date.parse(v.server_time) - Date.now();
        render(v);
        setTimeout(poll, 3000);
      });
    }).catch(function () {
      $('offline').hidden = false;
      setTimeout(poll, 6000);
    });
  };
  setTimeout(poll, 3000);
})();
`;

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * The page's policy: its one inline script and style by hash, images only as data URLs (the QR code), requests
 * only to its own origin (the status endpoint), no frames, forms, plugins or base URL.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `script-src ${sha256(SCRIPT)}`,
  `style-src ${sha256(STYLE)}`,
  'img-src data:',
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
