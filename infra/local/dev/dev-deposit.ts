import { Contract, JsonRpcProvider } from 'ethers';
import { ERC20_ABI } from '../../../shared/chain/evm/abi.js';
import { findCurrency } from '../../../shared/domain/currencies.js';
import { custodyCurrency, isCustodyBlockchain } from '../../../shared/domain/custody.js';
import { GatewayError, NotFoundError, ValidationError } from '../../../shared/domain/errors.js';
import { parseDecimal, toBaseUnits } from '../../../shared/domain/money.js';
import { custodyRuntime } from '../../../shared/runtime/custody.js';
import { tenantsRuntime } from '../../../shared/runtime/tenants.js';
import { tokenContract } from '../../../shared/runtime/currencies.js';
import { depositAddress } from '../../../shared/usecases/custody/addresses.js';
import { allTenants } from '../../../shared/usecases/tenants/manage-tenants.js';
import type { LocalChains } from './dev-pay.js';
import { mintTestToken } from './deploy.js';

/**
 * `npm run gateway -- dev deposit --custody ACCOUNT_ID --blockchain ETH|BSC|TRX|SOL --amount X [--tenant ID]`: sends
 * USDT to a custody account's address on the local chain, like an ordinary wallet would (one transfer), the address
 * made first if the account has none on that chain (through the API's own use case): on ETH and BSC from a funded
 * anvil test account (dev account 2, minted test USDT when short), on TRX from the local TRON node's faucet, on SOL
 * from the local Solana node's faucet (`/_local/transfer`). The chains confirm (and the Solana node finalizes)
 * on their own; the scanners, the custody-solana poller or `POST .../sync` credit it.
 */
export interface DevDepositInput {
  readonly accountId: string;
  readonly blockchain: string;
  readonly amount: string;
  /** The account's tenant; found by looking through every tenant when absent (a dev tool). */
  readonly tenantId?: string;
}

export interface DevDepositResult {
  readonly account_id: string;
  readonly blockchain: string;
  readonly currency: string;
  readonly amount: string;
  readonly address: string;
  readonly transaction_hash: string;
  readonly from: string;
}

async function tenantOf(accountId: string, tenantId: string | undefined): Promise<string> {
  const accounts = custodyRuntime().accounts;
  if (tenantId !== undefined) return tenantId;
  for (const t of await allTenants(tenantsRuntime())) if (await accounts.get(t.id, accountId)) return t.id;
  throw new NotFoundError(`No custody account ${accountId} in any tenant.`);
}

async function post(url: string, body: Record<string, string>, what: string): Promise<Record<string, unknown>> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`The local ${what} refused the transfer: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

export async function devDeposit(input: DevDepositInput, chains: LocalChains): Promise<DevDepositResult> {
  const blockchain = input.blockchain.toUpperCase();
  if (!isCustodyBlockchain(blockchain)) throw ValidationError.field('blockchain', 'ETH, BSC, TRX or SOL.');
  const code = custodyCurrency(blockchain);
  const currency = code ? findCurrency(code) : undefined;
  if (!code || !currency) throw ValidationError.field('blockchain', `${blockchain} has no USDT in the catalogue.`);
  const value = parseDecimal(input.amount, { field: 'amount', allowZero: false, maxScale: currency.decimals });
  const units = toBaseUnits(value, currency.decimals);
  const tenantId = await tenantOf(input.accountId, input.tenantId);
  const made = await depositAddress(tenantId, input.accountId, blockchain, custodyRuntime());
  const address = made.address;
  const url = chains.rpcUrls[currency.network];
  if (!url) throw new GatewayError('unsupported_blockchain', `No local ${currency.network} chain: start the stack with \`npm start\`.`, { blockchain });
  const done = (hash: string, from: string): DevDepositResult => ({
    account_id: input.accountId,
    blockchain,
    currency: currency.code,
    amount: value,
    address,
    transaction_hash: hash,
    from,
  });

  if (blockchain === 'SOL') {
    const { signature } = await post(`${url}/_local/transfer`, { owner: address, amount: units.toString() }, 'Solana node');
    return done(String(signature), 'local Solana faucet');
  }
  if (blockchain === 'TRX') {
    const token = tokenContract(currency);
    if (!token) throw new Error('No USDT token on the local TRON node.');
    const { txid } = await post(`${url}/_local/transfer`, { token, to: address, amount: units.toString() }, 'TRON node');
    return done(String(txid), 'local TRON faucet');
  }
  const token = chains.tokens[currency.network]?.[currency.token];
  if (!token) throw new Error(`No local test token for ${currency.token} on ${currency.network}: start the stack with \`npm start\`.`);
  const provider = new JsonRpcProvider(url, undefined, { batchMaxCount: 1, cacheTimeout: -1, staticNetwork: true, pollingInterval: 100 });
  try {
    const payer = await provider.getSigner(2);
    const erc20 = new Contract(token, ERC20_ABI, payer);
    const held = (await erc20.getFunction('balanceOf')(payer.address)) as bigint;
    if (held < units) await mintTestToken(await provider.getSigner(0), token, payer.address, units - held);
    const tx = (await erc20.getFunction('transfer')(address, units)) as { hash: string; wait(): Promise<unknown> };
    await tx.wait();
    return done(tx.hash, payer.address);
  } finally {
    provider.destroy();
  }
}
