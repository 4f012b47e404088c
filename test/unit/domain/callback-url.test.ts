import { GatewayError } from '../../../shared/domain/errors.js';
import { checkCallbackUrl, checkCallbackUrlSyntax } from '../../../shared/net/callback-url.js';

const aws = { allowLoopback: false };
const local = { allowLoopback: true };
const resolver = (table: Record<string, string[]>) => async (host: string) => table[host] ?? [];

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return (error as GatewayError).code;
  }
  throw new Error('expected a refusal');
}

describe('callback URL policy', () => {
  it('accepts HTTPS URLs that resolve to public addresses', async () => {
    const { addresses } = await checkCallbackUrl('https://shop.example/hook', aws, resolver({ 'shop.example': ['93.184.216.34'] }));
    expect(addresses).toEqual(['93.184.216.34']);
  });

  it('refuses plain HTTP, credentials in the URL and garbage', () => {
    expect(() => checkCallbackUrlSyntax('http://shop.example/hook', aws)).toThrow('HTTPS');
    expect(() => checkCallbackUrlSyntax('https://user:pw@shop.example/', aws)).toThrow('credentials');
    expect(() => checkCallbackUrlSyntax('not a url', aws)).toThrow('valid URL');
    expect(() => checkCallbackUrlSyntax('ftp://shop.example/', aws)).toThrow('HTTPS');
  });

  it('refuses literal and resolved private, loopback, link-local and metadata targets', async () => {
    for (const url of [
      'https://10.0.0.5/x',
      'https://[::1]/x',
      'https://169.254.169.254/latest/meta-data',
      'https://[::ffff:127.0.0.1]/x',
      'https://localhost/x',
    ]) {
      expect([url, await refusal(checkCallbackUrl(url, aws))]).toEqual([url, 'invalid_url']);
    }
    // A public name whose DNS answer includes a private address (DNS rebinding) is refused.
    const rebinding = resolver({ 'evil.example': ['93.184.216.34', '192.168.0.10'] });
    expect(await refusal(checkCallbackUrl('https://evil.example/', aws, rebinding))).toBe('invalid_url');
    expect(await refusal(checkCallbackUrl('https://nowhere.example/', aws, resolver({})))).toBe('invalid_url');
  });

  it('allows plain-HTTP loopback receivers only when the local setting is on', async () => {
    await expect(checkCallbackUrl('http://127.0.0.1:4000/hook', local)).resolves.toMatchObject({ addresses: ['127.0.0.1'] });
    expect(await refusal(checkCallbackUrl('http://127.0.0.1:4000/hook', aws))).toBe('invalid_url');
    // Even locally, plain HTTP to a non-loopback host is refused.
    expect(await refusal(checkCallbackUrl('http://shop.example/', local, resolver({ 'shop.example': ['93.184.216.34'] })))).toBe('invalid_url');
    expect(await refusal(checkCallbackUrl('http://10.0.0.1/', local))).toBe('invalid_url');
  });
});
