import { checkCallbackUrl, checkRegisteredUrl } from '../../../shared/net/callback-url.js';
import { checkedUrl } from '../../../shared/usecases/webhooks/common.js';

const aws = { allowLoopback: false };
const offline = async (): Promise<string[]> => {
  throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
};
const resolver = (table: Record<string, string[]>) => async (host: string) => table[host] ?? [];
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => 'accepted',
    (e: { code?: string }) => e.code,
  );

describe('webhook URL registration', () => {
  it('accepts a name that does not resolve yet (no DNS needed to register)', async () => {
    await expect(checkedUrl('https://hooks.example.com/cb', 'url', { allowLoopback: false, resolve: offline })).resolves.toBe('https://hooks.example.com/cb');
    await expect(checkedUrl('https://hooks.example.com/cb', 'url', { allowLoopback: false, resolve: resolver({}) })).resolves.toBe(
      'https://hooks.example.com/cb',
    );
    await expect(checkRegisteredUrl('https://hooks.example.com/cb', aws, offline)).resolves.toMatchObject({ addresses: [] });
  });

  it('refuses literal private, loopback, link-local and metadata addresses, IPv6 forms included', async () => {
    for (const url of [
      'https://[::a9fe:a9fe]/',
      'https://[::ffff:169.254.169.254]/',
      'https://[::ffff:a9fe:a9fe]/',
      'https://[fe80::1]/',
      'https://[fd00::1]/',
      'https://[::1]/',
      'https://[::]/',
      'https://[::127.0.0.1]/',
      'https://[::10.0.0.1]/',
      'https://[fd00:ec2::254]/',
      'https://169.254.169.254/',
      'https://127.0.0.1/',
      'https://10.1.2.3/',
      'https://localhost/',
    ]) {
      expect([url, await refusal(checkedUrl(url, 'url', { allowLoopback: false, resolve: offline }))]).toEqual([url, 'invalid_url']);
    }
  });

  it('refuses a name that resolves to such an address', async () => {
    for (const address of ['::a9fe:a9fe', '::ffff:169.254.169.254', 'fe80::1', 'fd00::1', '::1', '169.254.169.254', '10.0.0.1']) {
      const resolve = resolver({ 'hooks.example.com': ['93.184.216.34', address] });
      expect([address, await refusal(checkedUrl('https://hooks.example.com/cb', 'url', { allowLoopback: false, resolve }))]).toEqual([address, 'invalid_url']);
    }
  });

  it('keeps the connect-time check strict: a name that does not resolve cannot be delivered to', async () => {
    expect(await refusal(checkCallbackUrl('https://hooks.example.com/cb', aws, offline))).toBe('invalid_url');
    expect(await refusal(checkCallbackUrl('https://hooks.example.com/cb', aws, resolver({ 'hooks.example.com': ['::a9fe:a9fe'] })))).toBe('invalid_url');
  });
});
