/**
 * The chain scanner's DepositSource (shared/usecases/deposits/ports.ts) on EVM networks: block heads and hashes,
 * the Transfer logs of the catalogue's token contracts in a block range (ONE eth_getLogs per range, whatever the
 * number of watched addresses), and the native coin's top-level transfers and balances (native transfers leave no
 * log). Addresses in lowercase hex, the form EVM deposit addresses are indexed by.
 */
import type { DepositSource, RecipientTransferReader } from '../../usecases/deposits/ports.js';
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

/**
 * A log-reading chain's DepositSource that also reads one address's incoming transfers (custody's sync:
 * `RecipientTransferReader`, through `transferLogsTo`; EVM: eth_getLogs on the `to` topic in ranges of at most
 * `maxRange` blocks).
 */
export function logRecipientSource(
  family: string,
  chain: EvmChainPort,
  addressForm: (address: string) => string,
  maxRange?: number,
): DepositSource & RecipientTransferReader {
  const transfersTo: RecipientTransferReader['transfersTo'] = (from, to, tokens, recipient) =>
    chain.transferLogsTo(from, to, tokens, recipient, maxRange === undefined ? {} : { maxRange });
  // Assigned onto the source, so that its `calls` getter stays live.
  return Object.assign(logDepositSource(family, chain, addressForm), { transfersTo });
}

/** An EVM network over JSON-RPC at `url` as custody's sync reads it, in eth_getLogs ranges of `maxRange` blocks. */
export const evmRpcRecipientSource = (url: string, maxRange?: number): DepositSource & RecipientTransferReader =>
  logRecipientSource('evm', jsonRpcChain(url), (address) => address.toLowerCase(), maxRange);
