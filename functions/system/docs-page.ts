/**
 * A self-contained page that renders /openapi.json (no CDN: it works offline and on the local stack).
 * It lists every operation by tag with its parameters, body and answers, and resolves `$ref`s.
 */
export const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Crypto Payment Gateway API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px/1.5 system-ui,sans-serif;margin:0;color:#1b1f23;background:#f6f8fa}
header{background:#24292f;color:#fff;padding:16px 24px}header h1{margin:0;font-size:20px}
main{max-width:1000px;margin:0 auto;padding:16px 24px}h2{margin-top:32px;border-bottom:1px solid #d0d7de}
details{background:#fff;border:1px solid #d0d7de;border-radius:6px;margin:8px 0}
summary{cursor:pointer;padding:8px 12px;font-family:ui-monospace,monospace}
.m{display:inline-block;min-width:64px;font-weight:700}.GET{color:#0969da}.POST{color:#1a7f37}.PATCH{color:#9a6700}.DELETE{color:#cf222e}.PUT{color:#8250df}
.body{padding:0 12px 12px}pre{background:#f6f8fa;padding:8px;overflow:auto;border-radius:4px;font-size:12px}
</style></head><body>
<header><h1>Crypto Payment Gateway API</h1><div id="meta"></div></header>
<main id="ops">Loading /openapi.json ...</main>
<script>
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]));
fetch('../openapi.json').then((r) => r.json()).then((doc) => {
  const resolve = (node, seen = new Set()) => {
    if (!node || typeof node !== 'object') return node;
    if (node.$ref) { const name = node.$ref.split('/').pop(); if (seen.has(name)) return { $ref: name }; seen.add(name); return resolve(doc.components.schemas[name], seen); }
    if (Array.isArray(node)) return node.map((n) => resolve(n, seen));
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolve(v, new Set(seen))]));
  };
  document.getElementById('meta').textContent = doc.info.title + ' ' + doc.info.version + ' (OpenAPI ' + doc.openapi + ')';
  const byTag = {};
  for (const [path, ops] of Object.entries(doc.paths)) for (const [method, op] of Object.entries(ops)) (byTag[(op.tags || ['Other'])[0]] ||= []).push({ path, method: method.toUpperCase(), op });
  document.getElementById('ops').innerHTML = Object.entries(byTag).map(([tag, list]) => '<h2>' + esc(tag) + '</h2>' + list.map(({ path, method, op }) => {
    const parts = [];
    if (op.description) parts.push('<p>' + esc(op.description) + '</p>');
    if (op.parameters && op.parameters.length) parts.push('<h4>Parameters</h4><pre>' + esc(JSON.stringify(op.parameters.map((p) => ({ name: p.name, in: p.in, required: !!p.required, schema: resolve(p.schema) })), null, 2)) + '</pre>');
    if (op.requestBody) parts.push('<h4>Body</h4><pre>' + esc(JSON.stringify(resolve(op.requestBody.content), null, 2)) + '</pre>');
    parts.push('<h4>Answers</h4><pre>' + esc(JSON.stringify(resolve(op.responses), null, 2)) + '</pre>');
    return '<details><summary><span class="m ' + method + '">' + method + '</span> ' + esc(path) + ' &mdash; ' + esc(op.summary || '') + '</summary><div class="body">' + parts.join('') + '</div></details>';
  }).join('')).join('');
}).catch((e) => { document.getElementById('ops').textContent = 'Could not load /openapi.json: ' + e; });
</script></body></html>`;
