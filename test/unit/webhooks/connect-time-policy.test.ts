import { createHttpSender, guardedLookup } from '../../../shared/webhooks/http-sender.js';

/** The production policy (no loopback) at delivery, with fake resolvers: nothing here opens a socket to a target. */
const production = { allowLoopback: false };

function lookupWith(addresses: string[], url = 'https://hooks.example.com/x') {
  const lookup = guardedLookup(url, production, async () => addresses);
  return new Promise<{ error: Error | null; address: unknown }>((resolve) =>
    lookup('hooks.example.com', { all: true }, ((error: NodeJS.ErrnoException | null, address: unknown) => resolve({ error, address })) as never),
  );
}

describe('connect-time address check', () => {
  it.each([['10.0.0.5'], ['127.0.0.1'], ['169.254.169.254'], ['::1'], ['::ffff:127.0.0.1'], ['::ffff:169.254.169.254'], ['fd00::1'], ['192.168.1.1']])(
    'refuses a name that resolves to %s at connect time',
    async (address) => {
      const { error } = await lookupWith(['93.184.216.34', address]);
      expect(error?.message).toMatch(/private, loopback, link-local or metadata/);
    },
  );

  it('lets a public answer through', async () => {
    const { error, address } = await lookupWith(['93.184.216.34']);
    expect(error).toBeNull();
    expect(address).toEqual([{ address: '93.184.216.34', family: 4 }]);
  });

  it('the sender refuses without connecting (DNS rebinding to the metadata address, plain HTTP, literal loopback)', async () => {
    const send = createHttpSender({ policy: production, resolve: async () => ['169.254.169.254'] });
    const rebinding = await send({ url: 'https://hooks.example.com/x', body: '{}', headers: {} });
    expect([rebinding.statusCode, rebinding.error]).toEqual([null, expect.stringMatching(/^refused:/)]);
    const plain = await send({ url: 'http://hooks.example.com/x', body: '{}', headers: {} });
    expect(plain.error).toMatch(/HTTPS/);
    const loopback = await send({ url: 'https://[::ffff:7f00:1]/x', body: '{}', headers: {} });
    expect(loopback.error).toMatch(/^refused:/);
  });
});
