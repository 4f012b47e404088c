import QRCode from 'qrcode';
import { qrDataUrl } from '../../../shared/usecases/qr.js';

/** qrDataUrl takes qrcode's encoder and SVG renderer alone (its entry would bundle the PNG renderer): the same image as the entry's. */
test.each([
  'ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=0x1111111111111111111111111111111111111111&uint256=1000000',
  'TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE',
  'x'.repeat(500),
])('%s', async (text) => {
  const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
  expect(await qrDataUrl(text)).toBe(`data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`);
});
