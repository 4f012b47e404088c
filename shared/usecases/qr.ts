import QRCode from 'qrcode';

/** `text` as a QR code in an image data URL (SVG: small, exact at any size, no canvas needed), with the standard's 4-module quiet zone. */
export async function qrDataUrl(text: string): Promise<string> {
  const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
}
