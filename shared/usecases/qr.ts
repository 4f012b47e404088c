import { create } from 'qrcode/lib/core/qrcode.js';
import { render } from 'qrcode/lib/renderer/svg-tag.js';

/**
 * `text` as a QR code in an image data URL (SVG: small, exact at any size, no canvas needed), with the standard's 4-module quiet zone.
 * What `QRCode.toString(text, { type: 'svg' })` does, from qrcode's encoder and SVG renderer alone: its entry
 * (lib/server.js) loads every renderer, the PNG one with pngjs, which the Lambdas would then bundle for nothing.
 */
export async function qrDataUrl(text: string): Promise<string> {
  const options = { errorCorrectionLevel: 'M', margin: 4 } as const;
  const svg = render(create(text, options), options);
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
}
