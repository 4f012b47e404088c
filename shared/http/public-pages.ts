/**
 * What the public pages (the hosted checkout, the refund claim page, the payment link page) share: their languages (English, German,
 * Spanish; `?lang=` first, then `Accept-Language` by quality, then English), number and date formatting with `Intl`
 * (crypto amounts keep every digit: the string is formatted, never a float), HTML escaping and the one style sheet,
 * inlined and allowed by hash in each page's Content-Security-Policy.
 */
export const LOCALES = ['en', 'de', 'es'] as const;
export type Locale = (typeof LOCALES)[number];

const isLocale = (tag: string): tag is Locale => (LOCALES as readonly string[]).includes(tag);

/** `?lang=` first, then `Accept-Language` by quality, then English. */
export function negotiate(acceptLanguage: string | undefined, override: string | undefined): Locale {
  const forced = override?.trim().toLowerCase().split('-')[0] ?? '';
  if (isLocale(forced)) return forced;
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part, order) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { primary: tag.trim().toLowerCase().split('-')[0] ?? '', q: q === undefined ? 1 : Number(q), order };
    })
    .filter((r) => r.q > 0 && Number.isFinite(r.q))
    .sort((a, b) => b.q - a.q || a.order - b.order);
  return ranked.map((r) => r.primary).find(isLocale) ?? 'en';
}

/** `template` with each `{name}` replaced by `values[name]` (unknown names stay as written). */
export const fill = (template: string, values: Readonly<Record<string, string | number>>): string =>
  template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));

/** A crypto amount with every digit it has, grouped and with the locale's decimal separator. */
export function formatAmount(amount: string, locale: Locale): string {
  const scale = amount.split('.')[1]?.length ?? 0;
  return new Intl.NumberFormat(locale, { minimumFractionDigits: scale, maximumFractionDigits: scale }).format(amount as unknown as number);
}

/** A fiat price as the locale writes money (`25,00 €`, `US$25.00`). */
export function formatPrice(amount: string, currency: string, locale: Locale): string {
  return new Intl.NumberFormat(locale, { style: 'currency', currency }).format(amount as unknown as number);
}

/** The fields of a shown date and time; the page's script uses the same ones in the reader's zone. */
export const DATE_FIELDS: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZone: 'UTC',
  timeZoneName: 'short',
};

/** A date and time in UTC, as the locale writes them (the page's script shows it again in the reader's zone). */
export function formatDate(iso: string, locale: Locale): string {
  return new Intl.DateTimeFormat(locale, DATE_FIELDS).format(new Date(iso));
}

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

export const PAGE_STYLE = `
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

/** A public page: the document around `body`, in `locale`, with its one inline style sheet (no other origin). */
export function pageShell(locale: Locale, title: string, style: string, body: string): string {
  return `<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${style}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

/** A public page with a heading and one sentence (an unknown link, too many requests, a failure). */
export const messageShell = (locale: Locale, title: string, style: string, text: string): string =>
  pageShell(locale, title, style, `<main><section class="card"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></section></main>`);

/**
 * The HTML answers of a public form page (the refund claim page, the payment link page): its Content-Security-Policy,
 * never framed, never cached, no referrer, varying by language.
 */
export function htmlAnswers(
  contentSecurityPolicy: string,
): (statusCode: number, body: string, extra?: Record<string, string>) => { statusCode: number; headers: Record<string, string>; body: string } {
  const headers = {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': contentSecurityPolicy,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
    Vary: 'Accept-Language',
  };
  return (statusCode, body, extra = {}) => ({ statusCode, headers: { ...headers, ...extra }, body });
}
