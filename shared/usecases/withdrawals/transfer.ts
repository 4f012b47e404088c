import { tronAddressToEvmHex } from '../../domain/chain-addresses.js';
import { findCurrency } from '../../domain/currencies.js';
import { CHAIN_TX_PURPOSES } from '../../domain/events.js';
import { toBaseUnits } from '../../domain/money.js';
import type { WithdrawalState } from '../../domain/withdrawals.js';
import type { RequestChainTxInput } from '../chain-tx/request-chain-tx.js';
import { btcTransferOf } from './btc-batch.js';
import type { BatcherDeps } from './ports.js';

/** The chain transfer of one withdrawal, as the batcher asks the chain-tx engine for it (alone or out of a batch). */

/** The chain-tx request of a withdrawal: ERC-20 `transfer` for a token, a value transfer for the native coin. */
export async function transferOf(w: WithdrawalState, deps: BatcherDeps): Promise<RequestChainTxInput> {
  const currency = findCurrency(w.currency);
  if (!currency) throw new Error(`Unknown currency ${w.currency}`);
  if (currency.family === 'btc') return btcTransferOf(w, await deps.wallet(currency.network));
  const units = toBaseUnits(w.amount, currency.decimals);
  const configured = currency.native ? null : deps.tokenContract(currency.code);
  if (!currency.native && !configured) throw new Error(`No token contract for ${currency.code}`);
  // Inside the TVM (the engine's request, call data) TRON addresses are their 20-byte body.
  const tvm = (address: string): string => (currency.family === 'tron' ? tronAddressToEvmHex(address) : address);
  const contract = configured === null ? null : tvm(configured);
  return {
    network: currency.network,
    wallet: await deps.wallet(currency.network),
    to: contract ?? tvm(w.address),
    data: contract ? deps.calls.transfer(tvm(w.address), units) : '0x',
    value: contract ? 0n : units,
    purpose: CHAIN_TX_PURPOSES.withdrawal,
    reference: w.id,
    tenantId: w.tenantId,
  };
}
