/**
 * The batch payout contract (contracts/BatchPayout.sol) as runtime code uses it: its call data, the hot wallet's
 * one-time approval of it, and the outcome of a mined call read from its `Payouts` event. No build artifacts.
 * `payoutCalls` is the withdrawal use cases' `PayoutCalls` port (with the ERC-20 transfer of ./erc20.ts).
 */
import { Interface, MaxUint256, getAddress } from 'ethers';
import type { PayoutCalls } from '../../usecases/withdrawals/ports.js';
import { BATCH_PAYOUT_ABI, ERC20_ABI } from './abi.js';
import { erc20TransferData } from './erc20.js';

const batchIface = new Interface(BATCH_PAYOUT_ABI);
const erc20Iface = new Interface(ERC20_ABI);

/** The contract's bitmap width: at most this many items in one call. */
export const BATCH_PAYOUT_MAX_ITEMS = 256;

export interface PayoutItem {
  readonly to: string;
  /** Base units of the token. */
  readonly units: bigint;
}

/** `payout(token, recipients, amounts)` call data. */
export function batchPayoutData(token: string, items: readonly PayoutItem[]): string {
  if (items.length === 0 || items.length > BATCH_PAYOUT_MAX_ITEMS)
    throw new RangeError(`a batch pays 1 to ${BATCH_PAYOUT_MAX_ITEMS} items, not ${items.length}`);
  return batchIface
    .encodeFunctionData('payout', [getAddress(token), items.map((i) => getAddress(i.to.toLowerCase())), items.map((i) => i.units)])
    .toLowerCase();
}

/** The items of `payout` call data, in order. */
export function decodeBatchPayoutData(data: string): { token: string; items: PayoutItem[] } {
  const [token, recipients, amounts] = batchIface.decodeFunctionData('payout', data) as unknown as [string, string[], bigint[]];
  return { token: getAddress(token), items: recipients.map((to, i) => ({ to: getAddress(to), units: amounts[i] ?? 0n })) };
}

/** The hot wallet's approval of the batch payout contract for a token: `approve(contract, 2^256 - 1)`. */
export function batchPayoutApprovalData(contract: string): string {
  return erc20Iface.encodeFunctionData('approve', [getAddress(contract), MaxUint256]).toLowerCase();
}

export interface ReceiptLog {
  readonly address: string;
  readonly topics: readonly string[];
  readonly data: string;
}

export interface BatchOutcome {
  readonly token: string;
  readonly count: number;
  /** Indexes of the items NOT paid. */
  readonly failed: number[];
}

/** The outcome of a mined `payout` call: its one `Payouts` event from `contract`; null when the receipt has none. */
export function batchOutcomeOf(logs: readonly ReceiptLog[], contract: string): BatchOutcome | null {
  const want = getAddress(contract);
  for (const log of logs) {
    if (getAddress(log.address) !== want) continue;
    const parsed = batchIface.parseLog({ topics: [...log.topics], data: log.data });
    if (parsed?.name !== 'Payouts') continue;
    const count = Number(parsed.args[1] as bigint);
    const mask = parsed.args[2] as bigint;
    const failed: number[] = [];
    for (let i = 0; i < count; i++) if ((mask >> BigInt(i)) & 1n) failed.push(i);
    return { token: getAddress(parsed.args[0] as string), count, failed };
  }
  return null;
}

/** The withdrawals' call data: a single token transfer, and the batch payout's. */
export const payoutCalls: PayoutCalls = {
  transfer: erc20TransferData,
  batchPayout: batchPayoutData,
  decodeBatchPayout: decodeBatchPayoutData,
  batchPayoutApproval: batchPayoutApprovalData,
  batchOutcome: batchOutcomeOf,
};
