/**
 * The chain scanner's DepositSource (shared/usecases/deposits/ports.ts) on EVM networks: block heads and hashes,
 * the Transfer logs of the catalogue's token contracts in a block range (ONE eth_getLogs per range, whatever the
 * number of watched addresses), and the native coin's top-level transfers and balances (native transfers leave no
 * log). Addresses in lowercase hex, the form EVM deposit addresses are indexed by.
 */
import type { DepositSource } from '../../usecases/deposits/ports.js';
import type { EvmChainPort } from './scanner.js';
import { jsonRpcChain } from './scanner.js';

/**
 * A DepositSource over a log-reading chain port (the EVM JSON-RPC one; TRON's reader has the same shape:
 * shared/chain/tron/deposit-source.ts), for a family whose addresses the index keys in `addressForm`.
 */
export function logDepositSource(family: string, chain: EvmChainPort, addressForm: (address: string) => string): DepositSource {
  return {
    family,
    addressForm,
    head: () => chain.blockNumber(),
    block: (n) => chain.block(n),
    tokenTransfers: (from, to, tokens) => chain.transferLogs(from, to, tokens),
    native: { transfers: (from, to) => chain.nativeTransfers(from, to), balance: (address, atBlock) => chain.balance(address, atBlock) },
    get calls() {
      return chain.calls;
    },
    close: () => chain.close(),
  };
}

/** An EVM network's deposits, read through `chain` (tests pass their own chain). */
export const evmDepositSource = (chain: EvmChainPort): DepositSource => logDepositSource('evm', chain, (address) => address.toLowerCase());

/** An EVM network's deposits over JSON-RPC at `url`. */
export const evmRpcDepositSource = (url: string): DepositSource => evmDepositSource(jsonRpcChain(url));
