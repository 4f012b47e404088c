import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpSender } from '../../../shared/webhooks/http-sender.js';
import { startReceiver } from './support.js';

/** What counts as a failed attempt: non-2xx, no answer in time, a dropped connection; and what is kept of an answer. */
describe('HTTP sender', () => {
  const send = createHttpSender({ policy: { allowLoopback: true }, timeoutMs: 300 });

  it('keeps the status and at most 500 characters of the answer', async () => {
    const receiver = await startReceiver(() => 503);
    try {
      const answer = await send({ url: receiver.url, body: '{}', headers: { 'webhook-id': 'x' } });
      expect([answer.statusCode, answer.error, answer.excerpt]).toEqual([503, null, 'receiver unavailable']);
    } finally {
      await receiver.close();
    }
  });

  it('a dropped connection and a receiver that does not answer in time are failures without a status', async () => {
    const dropping = await startReceiver(() => 'dropped');
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const dropped = await send({ url: dropping.url, body: '{}', headers: {} });
      expect(dropped.statusCode).toBeNull();
      expect(dropped.error).toBeTruthy();
      const late = await send({ url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`, body: '{}', headers: {} });
      expect([late.statusCode, late.error]).toEqual([null, 'timeout after 300 ms']);
    } finally {
      await dropping.close();
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('refuses loopback receivers under the production policy, even by name', async () => {
    const receiver = await startReceiver(() => 200);
    try {
      const production = createHttpSender({ policy: { allowLoopback: false } });
      const byName = await production({ url: receiver.url.replace('127.0.0.1', 'localhost'), body: '{}', headers: {} });
      expect(byName.error).toMatch(/^refused:/);
      expect(receiver.received).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });
});
