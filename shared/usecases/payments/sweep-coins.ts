import { NotFoundError } from '../../domain/errors.js';
import type { Deposit, PaymentState } from '../../domain/payments.js';
import { counts, isConfirmedDeposit } from '../../domain/payments.js';
import { parseItem } from '../chain-tx/items.js';
import type { HotCoin, HotCoinStore } from '../coins/ports.js';
import type { PaymentRepository, SweepPort } from './ports.js';
import { sweepReference } from './settle.js';

/**
 * The "sweep" of a UTXO network (Bitcoin), where there is nothing to sweep: a deposit address already pays to the hot
 * wallet's key (shared/chain/btc/p2wsh.ts). Settling a confirmed payment records its confirmed deposits as the hot
 * wallet's coins (`HotCoinStore.add`: source `payment:<tenant>:<payment>`, tag the payment's salt) and answers `done`
 * at once with the payment's deposit transaction, so the pass completes and credits it in the same pass
 * (settle.ts). One payment a sweep (`maxSalts` 1): the hash it answers is that payment's own. Idempotent: a pass
 * that dies between the coins' record and the payment's save records nothing twice when it is swept again.
 */
export interface CoinSweepDeps {
  readonly payments: Pick<PaymentRepository, 'get'>;
  readonly coins: HotCoinStore;
}

/** A confirmed, credited deposit of a payment as the hot wallet's coin. */
export function coinOfDeposit(p: Pick<PaymentState, 'tenantId' | 'id' | 'network' | 'salt'>, d: Deposit): HotCoin {
  return { network: p.network, txid: d.txHash, vout: d.logIndex, value: BigInt(d.amountBase), tag: p.salt, source: sweepReference(p) };
}

export function coinSweep(deps: CoinSweepDeps): SweepPort {
  return {
    maxSalts: 1,
    async requestSweep(request) {
      const [item, ...others] = request.items ?? [];
      if (item === undefined || others.length > 0) throw new RangeError(`A coin sweep settles exactly one payment (${request.reference})`);
      const { tenantId, id } = parseItem(item);
      const payment = await deps.payments.get(tenantId, id);
      if (!payment) throw new NotFoundError(`No payment ${item} to settle`);
      const credited = payment.deposits.filter((d) => counts(d) && isConfirmedDeposit(d));
      const first = credited[0];
      if (!first) throw new RangeError(`Payment ${item} has no confirmed deposit to settle`);
      await deps.coins.add(credited.map((d) => coinOfDeposit(payment, d)));
      return { status: 'done', txHash: payment.transactionHash ?? first.txHash };
    },
    // Nothing is ever in flight: a payment left `sending` by a pass that died is settled again (its coins are
    // recorded once whatever happens) by the recovery of settle.ts.
    carried: async () => [],
  };
}
