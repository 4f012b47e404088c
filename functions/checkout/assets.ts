import { createHash } from 'node:crypto';

/**
 * The page's only style sheet and script, inlined and allowed by hash in the Content-Security-Policy: nothing is
 * loaded from anywhere, not even from the page's own origin. Both are fixed text; everything that varies comes
 * from the HTML (data attributes) and the status endpoint.
 */
export const STYLE = `
:root{color-scheme:light;--ink:#111827;--muted:#4b5563;--line:#d1d5db;--bg:#f3f4f6;--card:#fff;--accent:#1d4ed8;--ok:#047857;--warn:#92400e;--bad:#b91c1c}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Liberation Sans",Arial,sans-serif}
main{max-width:480px;margin:0 auto;padding:16px}
.card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:20px;margin-bottom:16px}
.merchant{margin:0;color:var(--muted);font-size:.95rem}
h1{margin:.25rem 0;font-size:1.35rem;line-height:1.3;overflow-wrap:anywhere}
.price{margin:0;font-size:1.5rem;font-weight:700}
.order{margin:0;color:var(--muted);font-size:.9rem;overflow-wrap:anywhere}
.status{margin:0;font-weight:600;padding:12px 14px;border-radius:8px;background:#eff6ff;color:var(--accent)}
.status[data-state=paid]{background:#ecfdf5;color:var(--ok)}
.status[data-state=partially_paid],.status[data-state=seen]{background:#fffbeb;color:var(--warn)}
.status[data-state=expired],.status[data-state=cancelled],.status[data-state=failed]{background:#fef2f2;color:var(--bad)}
.asset{margin:0 0 4px;font-weight:600}
.warning{margin:0 0 16px;font-size:.9rem;color:var(--warn)}
label{display:block;font-size:.9rem;color:var(--muted);margin:12px 0 4px}
.row{display:flex;gap:8px;align-items:flex-start}
.row input,.row textarea{flex:1;min-width:0;font:inherit;font-family:ui-monospace,"DejaVu Sans Mono","Liberation Mono",monospace;font-size:.95rem;padding:10px;border:1px solid var(--line);border-radius:8px;background:#f9fafb;color:var(--ink)}
/* The whole address, wrapped: a customer compares its start and its end. */
.row textarea{resize:none;word-break:break-all;field-sizing:content;min-height:2.6em;line-height:1.35}
#pay{margin-top:16px}
button,.button{font:inherit;font-weight:600;border:0;border-radius:8px;padding:10px 14px;background:var(--accent);color:#fff;cursor:pointer;text-decoration:none;display:inline-block;text-align:center}
button:focus-visible,.button:focus-visible,input:focus-visible,textarea:focus-visible,a:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.qr{margin:16px auto 8px;text-align:center}
.qr img{width:240px;height:240px;max-width:100%;image-rendering:pixelated;background:#fff}
.wallet{display:block;margin:8px 0 0}
.timer{margin:12px 0 0;color:var(--muted);font-size:.95rem}
.timer strong{color:var(--ink);font-variant-numeric:tabular-nums}
.sums{display:grid;grid-template-columns:auto 1fr;gap:4px 12px;margin:12px 0 0;font-size:.95rem}
.sums dt{color:var(--muted)}.sums dd{margin:0;text-align:right;font-variant-numeric:tabular-nums}
.links{margin:12px 0 0}
.links a{color:var(--accent);font-weight:600}
.live{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
[hidden]{display:none!important}
`;

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
