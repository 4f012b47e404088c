/**
 * Real-browser tests: Debian's Chromium (installed by `npm run ensure:chromium`, or CHROMIUM_PATH) driven by
 * puppeteer-core, which downloads no browser of its own.
 */
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import puppeteer, { type Browser, type HTTPRequest, type Page, type ResourceType } from 'puppeteer-core';

/** jsqr is CommonJS with `exports.default` typed as an ES default export: under NodeNext, its default import is the module. */
const jsQR = jsQRModule.default;

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Without the background-networking flags Chromium tries to reach Google's hosts (component updates, sync,
 * variations) on a network that has none. Even with them, Chromium 156 still looks up accounts.google.com
 * (ListAccounts), update.googleapis.com and clients2.google.com (network time) at start, so the resolver rule
 * answers "not found" for every name but loopback ones: nothing leaves the machine, not even a DNS query.
 * --no-sandbox because tests run as root; --disable-dev-shm-usage because /dev/shm is small in containers.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE *.localhost, EXCLUDE 127.*, EXCLUDE ::1',
];

/** Launches headless Chromium on a fresh profile in a temporary folder, which `browser.close()` removes. */
export async function launchBrowser(): Promise<Browser> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'chromium-profile-'));
  const removeProfile = () => rm(userDataDir, { recursive: true, force: true, maxRetries: 3 });
  let browser: Browser;
  try {
    browser = await puppeteer.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS, userDataDir });
  } catch (error) {
    await removeProfile();
    throw error;
  }
  const close = browser.close.bind(browser);
  browser.close = async () => {
    try {
      await close();
    } finally {
      await removeProfile();
    }
  };
  return browser;
}

export interface RecordedRequest {
  url: string;
  resourceType: ResourceType;
}

export interface RequestRecorder {
  /** Every request the page (and its frames) made since recording began, in order. */
  readonly requests: readonly RecordedRequest[];
  /** The requests to an origin other than `origin` (default: the page's current one); data: and about: URLs are not counted. */
  foreign(origin?: string): RecordedRequest[];
  stop(): void;
}

/** Records every request the page makes, so a test can assert that nothing came from another origin. */
export function recordRequests(page: Page): RequestRecorder {
  const requests: RecordedRequest[] = [];
  const onRequest = (request: HTTPRequest) => requests.push({ url: request.url(), resourceType: request.resourceType() });
  page.on('request', onRequest);
  return {
    requests,
    foreign(origin = new URL(page.url()).origin) {
      return requests.filter(({ url }) => !/^(data|about):/.test(url) && new URL(url).origin !== origin);
    },
    stop() {
      page.off('request', onRequest);
    },
  };
}

/** The text of the QR code in a PNG image (a screenshot of it, say), or null when none is found. */
export function decodeQr(png: Uint8Array): string | null {
  const image = PNG.sync.read(Buffer.from(png));
  return jsQR(new Uint8ClampedArray(image.data.buffer, image.data.byteOffset, image.data.length), image.width, image.height)?.data ?? null;
}

/** docs/screenshots/ in the repository, created when missing: screenshots there are meant to be committed. */
export function screenshotDir(): string {
  const dir = join(ROOT, 'docs', 'screenshots');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * Writes a full-page screenshot at a phone's (360) or a desktop's (1280) width to docs/screenshots/<name>-<width>.png,
 * once the page's fonts have loaded, and returns its path.
 */
export async function saveScreenshot(page: Page, name: string, width: 360 | 1280): Promise<string> {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) throw new Error(`screenshot name ${JSON.stringify(name)}: use lower-case letters, digits and dashes`);
  await page.setViewport({ width, height: width === 360 ? 640 : 800, deviceScaleFactor: 1 });
  await page.evaluate('document.fonts.ready.then(() => true)');
  const path = join(screenshotDir(), `${name}-${width}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
