import { GatewayError } from '../../../shared/domain/errors.js';
import type { RefundState } from '../../../shared/domain/refunds.js';
import type { WithdrawalState } from '../../../shared/domain/withdrawals.js';
import { openRefund } from '../../../shared/domain/refunds.js';
import { DEFAULT_NETWORK_FEES } from '../../../shared/domain/withdrawal-fees.js';
import type { RefundRepository, RefundsDeps } from '../../../shared/usecases/refunds/ports.js';
import { submitClaim } from '../../../shared/usecases/refunds/claim.js';

/**
 * Setting a claim's address re-prices the payout for it and re-checks the minimum: a TRON address never activated
 * costs the activation fee (USDTTRC20: fee 1, activation 1, minimum sent 1), so a 2.5 refund can be paid to an active
 * address (1.5 sent) but not to a new one (0.5 sent, below the minimum); a refused address leaves the refund as it was.
 */
const now = new Date('2026-01-01T00:00:00Z');
const TOKEN = 'BBBBBBBBBBBBBBBBBBBBBB';
const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

function setup(amount: string, isNew: boolean) {
  const created: WithdrawalState[] = [];
  let stored: RefundState = openRefund(
    {
      id: 'r1',
      tenantId: 't1',
      paymentId: 'p1',
      currency: 'USDTTRC20',
      network: 'TRX',
      amount,
      networkFee: '1',
      address: null,
      memo: null,
      reason: null,
      account: 'main',
      callbackUrl: null,
      claimToken: TOKEN,
    },
    now,
  ).state;
  const refunds: RefundRepository = {
    get: async () => stored,
    listByPayment: async () => [stored],
    listByTenant: async () => ({ refunds: [stored], more: false }),
    refunded: async () => amount,
    create: async () => stored,
    save: async (_previous, change) => {
      stored = { ...change.state, version: stored.version + 1 };
      return stored;
    },
    dueClaims: async () => [],
    claim: async (token) => (token === TOKEN ? { tenantId: 't1', refundId: 'r1' } : null),
    creationItems: () => {
      throw new Error('a claim never creates a refund');
    },
    changeItems: () => {
      throw new Error('not used by a claim');
    },
  };
  const payouts: RefundsDeps['payouts'] = {
    get: async () => null,
    save: async () => {
      throw new Error('not used by a claim');
    },
    creationItems: (change) => {
      created.push(change.state);
      return [];
    },
  };
  const deps: Pick<RefundsDeps, 'refunds' | 'fees' | 'served' | 'payouts'> = {
    refunds,
    payouts,
    fees: { networkFees: DEFAULT_NETWORK_FEES, isNewAddress: async () => isNew },
    served: { payments: new Set(), withdrawals: new Set(['TRX']), tokens: new Set(), btcNetwork: 'mainnet' },
  };
  return { deps, stored: () => stored, created };
}

const entry = { address: TRON, confirmation: TRON, memo: '' };

it('an active address: set, the fee kept at the network fee, pending', async () => {
  const { deps, stored, created } = setup('2.5', false);
  const view = await submitClaim(TOKEN, entry, now, deps);
  expect([view.state, view.networkFee, view.amountSent]).toEqual(['set', '1', '1.5']);
  expect([stored().status, stored().address, stored().networkFee]).toEqual(['pending', TRON, '1']);
  // Its withdrawal is written with it: the amount less the fee, to the address entered.
  expect(created.map((w) => [w.amount, w.address, w.refundId])).toEqual([['1.5', TRON, stored().id]]);
});

it('a new address: the fee re-priced with the activation; the minimum then refuses it and the refund still awaits', async () => {
  const { deps, stored } = setup('2.5', true);
  const refused = await submitClaim(TOKEN, entry, now, deps).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(GatewayError);
  expect([(refused as GatewayError).code, (refused as GatewayError).details]).toEqual([
    'below_minimum',
    { minimum: '3', requested: '2.5', network_fee: '2', currency: 'USDTTRC20' },
  ]);
  expect([stored().status, stored().address, stored().networkFee]).toEqual(['awaiting_address', null, '1']);
});

it('a new address the refund covers: set with the re-priced fee', async () => {
  const { deps, stored } = setup('5', true);
  const view = await submitClaim(TOKEN, entry, now, deps);
  expect([view.networkFee, view.amountSent]).toEqual(['2', '3']);
  expect([stored().status, stored().networkFee]).toEqual(['pending', '2']);
});
