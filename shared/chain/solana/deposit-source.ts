/**
 * Custody's SOL deposits behind the AddressDepositSource port (shared/usecases/deposits/ports.ts): each watched
 * owner's associated token account history for the USDT mint (./deposits.ts), and the confirmed slot as the head.
 */
import type { AddressDepositSource } from '../../usecases/deposits/ports.js';
import { listIncomingTokenTransfers } from './deposits.js';
import type { SolanaRpcPort } from './rpc.js';

export function solanaAddressDeposits(rpc: Pick<SolanaRpcPort, 'getSignaturesForAddress' | 'getTransaction' | 'getSlot'>, mint: string): AddressDepositSource {
  return {
    head: () => rpc.getSlot('confirmed'),
    async incoming(owner, since) {
      const listed = await listIncomingTokenTransfers(rpc, { owner, mint, ...(since === undefined ? {} : { since }) });
      return {
        transfers: listed.transfers.map((t) => ({
          txHash: t.signature,
          index: t.accountIndex,
          amount: t.amount,
          blockNumber: t.slot,
          voted: t.confirmationStatus !== 'processed',
          final: t.finalized,
        })),
        cursor: listed.cursor,
        more: listed.more,
      };
    },
  };
}
