import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import type { Browser, Page } from 'puppeteer-core';
import QRCode from 'qrcode';
import { decodeQr, launchBrowser, recordRequests, type RequestRecorder } from '../../support/browser.js';

/**
 * The browser harness on a real Chromium: a page served from 127.0.0.1 with an inline SVG QR code, a same-origin
 * script and one image from another origin (a second server on another port).
 */
const URI = 'ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=0x1111111111111111111111111111111111111111&uint256=25002223';

async function listen(handler: RequestListener): Promise<{ server: Server; origin: string }> {
  const server = createServer(handler).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function stop(server: Server | undefined): Promise<void> {
  if (!server?.listening) return;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

const page = (svg: string, foreignOrigin: string) => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>Harness</title>
    <style>body { font-family: sans-serif; margin: 24px } #qr { width: 240px } #qr svg { display: block; width: 100% }</style>
  </head>
  <body>
    <h1 id="title">Pay 25.002223 USDT</h1>
    <div id="qr">${svg}</div>
    <p id="status">waiting for the script</p>
    <img id="foreign" src="${foreignOrigin}/x.png" alt="">
    <script src="/app.js"></script>
  </body>
</html>`;

let app: { server: Server; origin: string } | undefined;
let foreign: { server: Server; origin: string } | undefined;
const foreignHits: string[] = [];
let browser: Browser | undefined;
let tab: Page;
let recorder: RequestRecorder;

beforeAll(async () => {
  foreign = await listen((req, res) => {
    foreignHits.push(req.url ?? '');
    res.writeHead(404).end();
  });
  const html = page(await QRCode.toString(URI, { type: 'svg' }), foreign.origin);
  app = await listen((req, res) => {
    if (req.url === '/') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    else if (req.url === '/app.js')
      res.writeHead(200, { 'content-type': 'text/javascript' }).end("document.getElementById('status').textContent = 'script ran';");
    else res.writeHead(404).end();
  });
  browser = await launchBrowser();
  tab = await browser.newPage();
  recorder = recordRequests(tab);
  await tab.goto(`${app.origin}/`, { waitUntil: 'load' });
});

afterAll(async () => {
  await browser?.close();
  await Promise.all([stop(app?.server), stop(foreign?.server)]);
});

test('records every request; only the image from the other port is foreign', async () => {
  const origin = app!.origin;
  expect(recorder.requests).toEqual(
    expect.arrayContaining([
      { url: `${origin}/`, resourceType: 'document' },
      { url: `${origin}/app.js`, resourceType: 'script' },
      { url: `${foreign!.origin}/x.png`, resourceType: 'image' },
    ]),
  );
  expect(recorder.foreign()).toEqual([{ url: `${foreign!.origin}/x.png`, resourceType: 'image' }]);
  expect(recorder.foreign(foreign!.origin).map((r) => r.url)).toContain(`${origin}/app.js`);
  expect(foreignHits).toEqual(['/x.png']);
  expect(await tab.evaluate("document.getElementById('status').textContent")).toBe('script ran');
});

test('a screenshot of the QR code decodes to the exact URI', async () => {
  const qr = await tab.$('#qr');
  expect(qr).not.toBeNull();
  expect(decodeQr(await qr!.screenshot())).toBe(URI);
});

test('decodeQr answers null for an image without a QR code', () => {
  const blank = new PNG({ width: 64, height: 64 });
  blank.data.fill(255);
  expect(decodeQr(PNG.sync.write(blank))).toBeNull();
});

test('text renders (a font is installed): the heading has dark pixels', async () => {
  const image = PNG.sync.read(Buffer.from(await (await tab.$('#title'))!.screenshot()));
  let dark = 0;
  for (let i = 0; i < image.data.length; i += 4) if (image.data[i]! < 128 && image.data[i + 1]! < 128 && image.data[i + 2]! < 128) dark++;
  expect(dark).toBeGreaterThan(100);
});

test('closing the browser removes its temporary profile', async () => {
  const other = await launchBrowser();
  const profile = other
    .process()
    ?.spawnargs.find((arg) => arg.startsWith('--user-data-dir='))
    ?.slice('--user-data-dir='.length);
  expect(profile && existsSync(profile)).toBe(true);
  await other.close();
  expect(existsSync(profile!)).toBe(false);
});
