/**
 * Helpers for the browser tests of the hosted checkout page. The page's own code is not imported: what a test
 * expects (the EIP-681 URI, base units, formatted amounts) is computed here from the API record.
 * The tests type-check without the DOM library, so page-side code is passed as expression strings.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'puppeteer-core';
import { decodeQr } from './browser.js';

/** A decimal string (`25.000000`) in base units of a token with `decimals` decimals; throws on more digits than that. */
export function baseUnits(amount: string, decimals: number): bigint {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount);
  if (!match) throw new Error(`not a decimal amount: ${amount}`);
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > decimals) throw new Error(`${amount} has more than ${decimals} decimals`);
  return BigInt(match[1] ?? '0') * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
}

/** Base units back to a decimal string with exactly `scale` fraction digits (`scale` <= `decimals`, no rounding needed). */
export function fromBaseUnits(units: bigint, decimals: number, scale: number): string {
  const unit = 10n ** BigInt(decimals);
  const whole = units / unit;
  const fraction = (units % unit).toString().padStart(decimals, '0');
  if (/[1-9]/.test(fraction.slice(scale))) throw new Error(`${units} does not fit ${scale} decimals`);
  return scale === 0 ? whole.toString() : `${whole}.${fraction.slice(0, scale)}`;
}

/** The number of fraction digits of a decimal string. */
export const scaleOf = (amount: string): number => amount.split('.')[1]?.length ?? 0;

/** A decimal string as the English page writes it: every digit kept, thousands grouped (`1,234.500000`). */
export function shownAmount(amount: string): string {
  const [whole = '0', fraction] = amount.split('.');
  const grouped = BigInt(whole).toLocaleString('en');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

/** EIP-681: a wallet's request to call `transfer(address, uint256)` on `token` on chain `chainId`. */
export const erc20TransferUri = (token: string, chainId: number, to: string, units: bigint): string =>
  `ethereum:${token}@${chainId}/transfer?address=${to}&uint256=${units}`;

/** The state the page shows (`main[data-state]`). */
export const pageState = (page: Page): Promise<string | null> =>
  page.evaluate("document.querySelector('main')?.dataset.state ?? null") as Promise<string | null>;

/** Waits until the page shows `state`, without reloading it (the page's script renders the status it polls). */
export async function waitForState(page: Page, state: string, timeout: number): Promise<void> {
  await page.waitForFunction(`document.querySelector('main')?.dataset.state === ${JSON.stringify(state)}`, { timeout, polling: 250 });
}

/** `el.value` (inputs) or trimmed `textContent` of `#id`; null when there is no such element. */
export const valueOf = (page: Page, id: string): Promise<string | null> =>
  page.evaluate(
    `(() => { const el = document.getElementById(${JSON.stringify(id)}); return el ? ('value' in el ? el.value : el.textContent.trim()) : null; })()`,
  ) as Promise<string | null>;

/** The text of the QR code as shown: a screenshot of `#qr`, decoded. */
export async function shownQr(page: Page): Promise<string | null> {
  const qr = await page.$('#qr');
  if (!qr) return null;
  try {
    return decodeQr(await qr.screenshot());
  } finally {
    await qr.dispose();
  }
}

/** Whether the file at `path` starts with the PNG signature. */
export function isPng(path: string): boolean {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return readFileSync(path).subarray(0, 8).equals(signature);
}
