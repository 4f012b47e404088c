import type { Browser, HTTPResponse, Page } from 'puppeteer-core';
import { docsRoutes } from '../../../functions/system/docs.js';
import { systemRoutes } from '../../../functions/system/routes.js';
import { API_FUNCTIONS } from '../../../infra/definition.js';
import { startHttpServer, type LocalHttpServer } from '../../../infra/local/http-server.js';
import { createPublicApi } from '../../../shared/http/public-pipeline.js';
import type { SystemDeps } from '../../../shared/runtime/system.js';
import { launchBrowser, recordRequests, type RequestRecorder } from '../../support/browser.js';

/**
 * `/docs/` in a real Chromium, served by the local stack's HTTP server with the system Lambda's routes: Scalar's API
 * reference, loaded from the page's own origin, renders `/openapi.json` (its operations and its webhooks), and the
 * page loads nothing from anywhere else (no CDN, no web fonts) under a policy it does not violate.
 */
const SETUP_TIMEOUT = 120_000;

let server: LocalHttpServer;
let browser: Browser;
let page: Page;
let recorder: RequestRecorder;
let response: HTTPResponse | null;
const problems: string[] = [];

beforeAll(async () => {
  const system = API_FUNCTIONS.find((f) => f.name === 'system');
  if (!system) throw new Error('no system function in the definition');
  const deps: SystemDeps = { table: { ping: async () => undefined }, publicBaseUrl: () => server.url };
  const handler = createPublicApi<SystemDeps>([...systemRoutes, ...docsRoutes], deps);
  server = await startHttpServer({ port: 0, functions: [{ name: system.name, routes: system.routes, handler }] });
  browser = await launchBrowser();
  page = await browser.newPage();
  // A desktop's width: the navigation is shown beside the reference (on a phone's, behind a menu button).
  await page.setViewport({ width: 1280, height: 900 });
  page.on('console', (msg) => {
    if (/content security policy/i.test(msg.text())) problems.push(msg.text());
  });
  page.on('pageerror', (error) => problems.push(String(error)));
  await page.evaluateOnNewDocument(
    "document.addEventListener('securitypolicyviolation', (e) => { (window.__violations ||= []).push(e.violatedDirective + ' ' + e.blockedURI); });",
  );
  recorder = recordRequests(page);
  response = await page.goto(`${server.url}/docs/`, { waitUntil: 'load' });
  // Rendered: the document's title and the navigation, its first group open.
  await page.waitForFunction("document.body.innerText.includes('Issue an access token')", { timeout: 60_000 });
}, SETUP_TIMEOUT);

afterAll(async () => {
  await browser?.close();
  await server?.close();
}, SETUP_TIMEOUT);

const text = (): Promise<string> => page.evaluate('document.body.innerText') as Promise<string>;

/** Opens the navigation's groups of that name (the tag `Webhooks` and the document's webhooks share it); how many. */
const openGroup = (name: string): Promise<number> =>
  page.evaluate(`(() => {
    const toggles = [...document.querySelectorAll('button')].filter((b) => b.textContent.trim() === ${JSON.stringify(`Open Group - ${name}`)});
    for (const toggle of toggles) toggle.click();
    return toggles.length;
  })()`) as Promise<number>;

it('renders the operations of /openapi.json', async () => {
  expect(await text()).not.toContain('Create a payment');
  expect(await openGroup('Payments')).toBe(1);
  await page.waitForFunction("document.body.innerText.includes('Create a payment')", { timeout: 30_000 });
  const shown = await text();
  expect(shown).toContain('Create a payment');
  expect(shown).toContain('List payments');
});

it('renders the webhooks of /openapi.json', async () => {
  expect(await text()).not.toContain('payment_status_update');
  expect(await openGroup('Webhooks')).toBe(2);
  await page.waitForFunction("document.body.innerText.includes('payment_status_update')", { timeout: 30_000 });
  const shown = await text();
  expect(shown).toContain('payment_status_update');
  expect(shown).toContain('refund.created');
});

it('loads the reference from its own origin, and nothing from anywhere else, under a strict policy it does not violate', async () => {
  expect(response?.status()).toBe(200);
  const csp = response?.headers()['content-security-policy'] ?? '';
  expect(csp).toMatch(/(^|;\s*)default-src 'none'(;|$)/);
  expect(csp).toMatch(/(^|;\s*)script-src 'self'(;|$)/);
  expect(csp).toMatch(/(^|;\s*)connect-src 'self'(;|$)/);
  expect(csp).not.toContain('unsafe-eval');

  const urls = recorder.requests.map((r) => r.url);
  expect(urls).toEqual(expect.arrayContaining([`${server.url}/docs/`, `${server.url}/openapi.json`]));
  expect(urls.some((u) => /^http:\/\/127\.0\.0\.1:\d+\/docs\/scalar\.[0-9a-f]{16}\.js$/.test(u))).toBe(true);
  expect(recorder.foreign(server.url)).toEqual([]);
  expect(problems).toEqual([]);
  expect(await page.evaluate('window.__violations ?? []')).toEqual([]);
});

it('uses no web font: the text is set in the system fonts', async () => {
  const fonts = (await page.evaluate('[...document.fonts].map((f) => f.family + " " + f.status)')) as string[];
  expect(fonts.filter((f) => !f.endsWith('unloaded'))).toEqual([]);
  expect(recorder.requests.filter((r) => r.resourceType === 'font')).toEqual([]);
});
