import { Contract, JsonRpcProvider } from 'ethers';
import { ERC20_ABI } from '../../../shared/chain/evm/abi.js';
import { mintTestToken } from './deploy.js';
import { findCurrency, NETWORKS } from '../../../shared/domain/currencies.js';
import { NotFoundError, ValidationError } from '../../../shared/domain/errors.js';
import { isPositive, parseDecimal, sub, toBaseUnits } from '../../../shared/domain/money.js';
import type { PaymentState } from '../../../shared/domain/payments.js';
import { received } from '../../../shared/domain/payments.js';
import { openPayments, waitingPayments } from '../../../shared/store/payments.js';
import { tokenContract } from '../../../shared/runtime/currencies.js';

/**
 * `npm run gateway -- dev pay <transaction_id> [--amount X]`: pays a payment on its network's local chain, like
 * an ordinary wallet would (one transfer, nothing else): on an EVM chain from a funded anvil test account (dev
 * account 2), minting test tokens to it first when it lacks them (the deployer, dev account 0, owns the test
 * tokens); on TRON and Bitcoin from the local node's faucet. Default amount: what is still due. The local chains produce
 * blocks on their own, so the deposit gathers its confirmations without anyone mining.
 */
export interface LocalChains {
  /** RPC URL per network (stack.json `rpcUrls`; TRX is the local TRON node's API, BTC the local Bitcoin node's Esplora API). */
  readonly rpcUrls: Readonly<Record<string, string>>;
  /** Test token addresses per network, by symbol (stack.json `contracts.networks[network].tokens`). */
  readonly tokens: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/** The LocalChains of a stack.json. */
export function localChainsOf(stack: {
  readonly rpcUrls: Readonly<Record<string, string>>;
  readonly contracts: { readonly networks?: Readonly<Record<string, { readonly tokens: Readonly<Record<string, string>> } | undefined>> };
}): LocalChains {
  const tokens: Record<string, Readonly<Record<string, string>>> = {};
  for (const [network, deployed] of Object.entries(stack.contracts.networks ?? {})) if (deployed) tokens[network] = deployed.tokens;
  return { rpcUrls: stack.rpcUrls, tokens };
}

/** A payment still open for deposits, found through the work queues (no tenant needed; a dev tool). */
async function findOpenPayment(paymentId: string): Promise<PaymentState> {
  const networks = Object.values(NETWORKS)
    .filter((n) => n.family === 'evm' || n.family === 'tron' || n.family === 'btc')
    .map((n) => n.code);
  const candidates = [...(await Promise.all(networks.map(waitingPayments))).flat(), ...(await Promise.all(networks.map(openPayments))).flat()];
  const found = candidates.find((p) => p.id === paymentId);
  if (!found) throw new NotFoundError(`No waiting or partially paid payment ${paymentId}.`);
  return found;
}

export async function devPay(
  paymentId: string,
  amount: string | undefined,
  chains: LocalChains,
): Promise<{ transaction_hash: string; amount: string; currency: string; address: string; from: string }> {
  const payment = await findOpenPayment(paymentId);
  const currency = findCurrency(payment.currency);
  if (!currency || (currency.family !== 'evm' && currency.family !== 'tron' && currency.family !== 'btc'))
    throw ValidationError.field('transaction_id', `Paying ${payment.currency} locally is not supported.`);
  const due = sub(payment.amountCrypto, received(payment));
  const value = amount === undefined ? due : parseDecimal(amount, { field: 'amount', allowZero: false, maxScale: currency.decimals });
  if (!isPositive(value)) throw ValidationError.field('amount', 'Nothing is due; give --amount.');
  const units = toBaseUnits(value, currency.decimals);
  if (currency.family === 'tron') {
    // The local TRON node's faucet: a TRC-20 transfer in its next block (it produces one every 3 s).
    const token = tokenContract(currency);
    const tronUrl = chains.rpcUrls[currency.network];
    if (!tronUrl || !token) throw new Error('No local TRON node or token: start the stack with `npm start`.');
    const res = await fetch(`${tronUrl}/_local/transfer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, to: payment.address, amount: units.toString() }),
    });
    if (!res.ok) throw new Error(`The local TRON node refused the transfer: ${res.status} ${await res.text()}`);
    const { txid } = (await res.json()) as { txid: string };
    return { transaction_hash: txid, amount: value, currency: currency.code, address: payment.address, from: 'local TRON faucet' };
  }
  if (currency.family === 'btc') {
    // The local Bitcoin node's faucet: a payment to the deposit address, mined in its next block (one every 2 s).
    const btcUrl = chains.rpcUrls[currency.network];
    if (!btcUrl) throw new Error('No local Bitcoin node: start the stack with `npm start`.');
    const res = await fetch(`${btcUrl}/_local/fund`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: payment.address, amount: units.toString() }),
    });
    if (!res.ok) throw new Error(`The local Bitcoin node refused the payment: ${res.status} ${await res.text()}`);
    const { txid } = (await res.json()) as { txid: string };
    return { transaction_hash: txid, amount: value, currency: currency.code, address: payment.address, from: 'local Bitcoin faucet' };
  }
  const rpcUrl = chains.rpcUrls[currency.network];
  if (!rpcUrl) throw new Error(`No local chain for ${currency.network}: start the stack with \`npm start\`.`);
  const provider = new JsonRpcProvider(rpcUrl, undefined, { batchMaxCount: 1, cacheTimeout: -1, staticNetwork: true, pollingInterval: 100 });
  try {
    const payer = await provider.getSigner(2);
    let hash: string;
    if (currency.native) {
      const tx = await payer.sendTransaction({ to: payment.address, value: units });
      await tx.wait();
      hash = tx.hash;
    } else {
      const token = chains.tokens[currency.network]?.[currency.token];
      if (!token) throw new Error(`No local test token for ${currency.token} on ${currency.network}`);
      const erc20 = new Contract(token, ERC20_ABI, payer);
      const held = (await erc20.getFunction('balanceOf')(payer.address)) as bigint;
      if (held < units) await mintTestToken(await provider.getSigner(0), token, payer.address, units - held);
      const tx = (await erc20.getFunction('transfer')(payment.address, units)) as { hash: string; wait(): Promise<unknown> };
      await tx.wait();
      hash = tx.hash;
    }
    return { transaction_hash: hash, amount: value, currency: currency.code, address: payment.address, from: payer.address };
  } finally {
    provider.destroy();
  }
}
