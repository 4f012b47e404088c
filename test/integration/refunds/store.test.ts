import { randomUUID } from 'node:crypto';
import { resetConfig } from '../../../shared/config/config.js';
import { GatewayError, InsufficientBalanceError } from '../../../shared/domain/errors.js';
import type { RefundState } from '../../../shared/domain/refunds.js';
import { openRefund, transition } from '../../../shared/domain/refunds.js';
import { creditEntry } from '../../../shared/domain/ledger.js';
import { expireRefundClaims } from '../../../shared/usecases/refunds/expire.js';
import { getBalance, postEntry } from '../../../shared/store/ledger.js';
import { dynamoRefunds } from '../../../shared/store/refunds.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';

/**
 * Refunds on DynamoDB Local: accepting one writes the refund, its hold, the payment's refunded total (conditioned to
 * stay within the payment's credit) and its events in ONE transaction, so concurrent refunds of one payment never
 * add up to more than the merchant was credited for it; releasing the hold gives the amount back.
 */
let table: TestTable;
const now = new Date('2026-11-20T12:00:00Z');

beforeAll(async () => {
  table = await startTestTable();
  resetConfig();
});
afterAll(async () => {
  await table?.stop();
});

/** A tenant whose main USDTERC20 balance is `funds`. */
async function funded(funds: string): Promise<string> {
  const tenantId = randomUUID();
  const entry = creditEntry({ type: 'adjustment', account: 'main', currency: 'USDTERC20', amount: funds, reason: 'test funding' });
  await postEntry({ tenantId, entryId: `funding:${tenantId}`, entry, now });
  return tenantId;
}

const accept = (tenantId: string, paymentId: string, amount: string, base: string, address: string | null = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed') =>
  dynamoRefunds.create(
    {
      change: openRefund(
        {
          id: randomUUID(),
          tenantId,
          paymentId,
          currency: 'USDTERC20',
          network: 'ETH',
          amount,
          networkFee: '1',
          address,
          memo: null,
          reason: null,
          account: 'main',
          callbackUrl: null,
          claimToken: address === null ? randomUUID() : null,
        },
        now,
      ),
      base,
    },
    now,
  );

const settle = (results: PromiseSettledResult<RefundState>[]) => ({
  accepted: results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : [])),
  refused: results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : [])),
});

it('twenty concurrent refunds of a quarter of what the payment received (25, credited 24.75): three accepted, held; the rest refused in the envelope', async () => {
  const tenantId = await funded('1000');
  const payment = randomUUID();
  const { accepted, refused } = settle(await Promise.allSettled(Array.from({ length: 20 }, () => accept(tenantId, payment, '6.25', '24.75'))));
  expect(accepted).toHaveLength(3);
  expect(refused).toHaveLength(17);
  for (const e of refused) {
    expect(e).toBeInstanceOf(GatewayError);
    expect((e as GatewayError).code).toBe('invalid_request');
    expect((e as GatewayError).details).toMatchObject({ refundable: '6', currency: 'USDTERC20' });
  }
  expect(await dynamoRefunds.refunded(tenantId, payment)).toBe('18.75');
  expect(await getBalance(tenantId, 'main', 'USDTERC20')).toMatchObject({ amount: '981.25', locked: '18.75' });
  expect((await dynamoRefunds.listByPayment(tenantId, payment)).map((r) => r.id).sort()).toEqual(accepted.map((r) => r.id).sort());
});

it('twenty concurrent refunds of exactly a quarter of the credit: four accepted, the credit refunded to the last unit and not beyond', async () => {
  const tenantId = await funded('1000');
  const payment = randomUUID();
  const { accepted, refused } = settle(await Promise.allSettled(Array.from({ length: 20 }, () => accept(tenantId, payment, '6.1875', '24.75'))));
  expect([accepted.length, refused.length]).toEqual([4, 16]);
  expect(await dynamoRefunds.refunded(tenantId, payment)).toBe('24.75');
  await expect(accept(tenantId, payment, '0.000001', '24.75')).rejects.toMatchObject({ code: 'invalid_request' });
});

it('a first refund above the credit is refused without writing anything', async () => {
  const tenantId = await funded('1000');
  const payment = randomUUID();
  await expect(accept(tenantId, payment, '24.750001', '24.75')).rejects.toMatchObject({ code: 'invalid_request' });
  expect(await dynamoRefunds.refunded(tenantId, payment)).toBe('0');
  expect(await getBalance(tenantId, 'main', 'USDTERC20')).toMatchObject({ amount: '1000', locked: '0' });
});

it('a refund the available balance cannot cover is refused: no hold, no refunded total, no refund', async () => {
  const tenantId = await funded('5');
  const payment = randomUUID();
  await expect(accept(tenantId, payment, '6', '24.75')).rejects.toBeInstanceOf(InsufficientBalanceError);
  expect(await dynamoRefunds.refunded(tenantId, payment)).toBe('0');
  expect(await dynamoRefunds.listByPayment(tenantId, payment)).toEqual([]);
  expect(await getBalance(tenantId, 'main', 'USDTERC20')).toMatchObject({ amount: '5', locked: '0' });
});

it('cancel releases the hold and gives the amount back to the payment: a new refund of it is accepted', async () => {
  const tenantId = await funded('100');
  const payment = randomUUID();
  const first = await accept(tenantId, payment, '24.75', '24.75', null);
  expect(first).toMatchObject({ status: 'awaiting_address', version: 1 });
  expect(await dynamoRefunds.claim(first.claimToken ?? '')).toEqual({ tenantId, refundId: first.id });
  await expect(accept(tenantId, payment, '1', '24.75')).rejects.toMatchObject({ code: 'invalid_request' });

  const cancelled = await dynamoRefunds.save(first, transition(first, { kind: 'cancel' }, now), now);
  expect(cancelled).toMatchObject({ status: 'cancelled', version: 2 });
  expect(await dynamoRefunds.get(tenantId, first.id)).toMatchObject({ status: 'cancelled' });
  expect(await dynamoRefunds.refunded(tenantId, payment)).toBe('0');
  expect(await getBalance(tenantId, 'main', 'USDTERC20')).toMatchObject({ amount: '100', locked: '0' });
  // A second save of the same change (a stale version) is refused; nothing is released twice.
  await expect(dynamoRefunds.save(first, transition(first, { kind: 'cancel' }, now), now)).rejects.toMatchObject({ code: 'invalid_state' });
  expect(await getBalance(tenantId, 'main', 'USDTERC20')).toMatchObject({ amount: '100', locked: '0' });

  const again = await accept(tenantId, payment, '24.75', '24.75');
  expect(again.status).toBe('pending');
  expect(await getBalance(tenantId, 'main', 'USDTERC20')).toMatchObject({ amount: '75.25', locked: '24.75' });
});

it('a claim unused by its deadline expires: the hold is released and the amount refundable again; one still open, or already addressed, is left alone', async () => {
  const tenantId = await funded('100');
  const payment = randomUUID();
  const unused = await accept(tenantId, payment, '30', '99', null);
  const addressed = await accept(tenantId, payment, '20', '99', null);
  await dynamoRefunds.save(
    addressed,
    transition(addressed, { kind: 'address_set', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', memo: null }, now),
    now,
  );
  const later = await dynamoRefunds.create(
    {
      change: openRefund({ ...unused, id: randomUUID(), amount: '10', claimToken: randomUUID(), address: null }, new Date(now.getTime() + 3600_000)),
      base: '99',
    },
    now,
  );
  expect(await getBalance(tenantId, 'main', 'USDTERC20')).toMatchObject({ amount: '40', locked: '60' });

  const at = (hours: number) => ({ now: () => new Date(now.getTime() + hours * 3600_000) });
  // Before the deadline nothing moves (the queue is every tenant's: count only this test's refunds).
  await expireRefundClaims({ refunds: dynamoRefunds, clock: at(71) });
  expect((await dynamoRefunds.get(tenantId, unused.id))?.status).toBe('awaiting_address');

  await expireRefundClaims({ refunds: dynamoRefunds, clock: at(72) });
  expect(await dynamoRefunds.get(tenantId, unused.id)).toMatchObject({ status: 'expired', claimToken: null });
  expect((await dynamoRefunds.get(tenantId, addressed.id))?.status).toBe('pending');
  expect((await dynamoRefunds.get(tenantId, later.id))?.status).toBe('awaiting_address');
  expect(await getBalance(tenantId, 'main', 'USDTERC20')).toMatchObject({ amount: '70', locked: '30' });
  expect(await dynamoRefunds.refunded(tenantId, payment)).toBe('30');

  // The schedule's worker runs it too (the payment-expirer), and a second run changes nothing.
  const { handler } = await import('../../../functions/payment-expirer/handler.js');
  const ran = (await handler({ time: new Date(now.getTime() + 74 * 3600_000).toISOString() } as never, undefined as never)) as { refundClaimsExpired: number };
  expect(ran.refundClaimsExpired).toBeGreaterThanOrEqual(1);
  expect((await dynamoRefunds.get(tenantId, later.id))?.status).toBe('expired');
  expect(await getBalance(tenantId, 'main', 'USDTERC20')).toMatchObject({ amount: '80', locked: '20' });
  expect(await dynamoRefunds.refunded(tenantId, payment)).toBe('20');
  expect((await expireRefundClaims({ refunds: dynamoRefunds, clock: at(80) })).expired).toBe(0);
});
