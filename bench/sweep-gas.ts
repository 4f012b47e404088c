/**
 * Gas of a swept deposit: on a fresh anvil, the forwarder factory (infra/local/dev/deploy.ts) and a 6-decimal test
 * USDT; N deposit addresses (clones not deployed yet, as a customer pays them) each receive a payment, then ONE
 * `deployAndFlush(salts, token)` from the hot wallet (the call data the sweep port sends, `sweepCallData`)
 * deploys every clone and moves every balance to the treasury. Its exact gas, divided by N, is set beside plain
 * ERC-20 `transfer`s measured on the same chain:
 *
 * - the movement a flush makes, done by an externally owned deposit address: its whole balance to the treasury
 *   (which already holds the token); the baseline of the target (≤ 1.5x);
 * - to an address that never held the token (as the withdrawal batch payout row of bench/chain-tx.ts).
 *
 * Gas depends only on the code and the data (amounts, salts and addresses are fixed), so the figures are
 * deterministic. Starts its own anvil and stops it.
 *
 *   npx tsx bench/sweep-gas.ts [N,N,...]
 */
import { pathToFileURL } from 'node:url';
import { JsonRpcProvider, dataSlice, getAddress, id } from 'ethers';
import type { Signer } from 'ethers';
import { startAnvil } from '../infra/local/anvil.js';
import { deployTestToken, ensureForwarderFactory, mintTestToken, TEST_TOKENS } from '../infra/local/dev/deploy.js';
import { depositAddress, saltFor } from '../shared/chain/evm/create2.js';
import { sweepCallData } from '../shared/chain/evm/factory-calls.js';
import { erc20TransferData } from '../shared/chain/evm/erc20.js';

export interface SweepGasRow {
  /** Deposits swept by the one call. */
  readonly deposits: number;
  /** Exact gas of the `deployAndFlush` transaction. */
  readonly gas: bigint;
  /** `gas / deposits` (rounded down). */
  readonly perDeposit: bigint;
}

export interface SweepGasResult {
  /** A holder's whole balance to the treasury, which already holds the token: what a flush moves. */
  readonly transferToTreasuryGas: bigint;
  /** A transfer to an address that never held the token. */
  readonly transferToNewHolderGas: bigint;
  readonly sweeps: readonly SweepGasRow[];
}

/** One payment of 12.5 USDT, as a customer sends it. */
const PAYMENT = 12_500_000n;
/** Addresses that never held anything, the same every run. */
const named = (label: string): string => getAddress(dataSlice(id(label), 12));

async function sent(signer: Signer, to: string, data: string): Promise<bigint> {
  const receipt = await (await signer.sendTransaction({ to, data })).wait();
  if (!receipt || receipt.status !== 1) throw new Error(`transaction to ${to} failed`);
  return receipt.gasUsed;
}

export async function benchSweepGas({ batches = [1, 10, 50] }: { readonly batches?: readonly number[] } = {}): Promise<SweepGasResult> {
  const anvil = await startAnvil();
  const provider = new JsonRpcProvider(anvil.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1, pollingInterval: 50 });
  try {
    const [owner, hotWallet, treasury, holder] = await Promise.all([0, 1, 2, 3].map((i) => provider.getSigner(i)));
    if (!owner || !hotWallet || !treasury || !holder) throw new Error('anvil has fewer than 4 dev accounts');
    const factory = await ensureForwarderFactory(owner, { owner: owner.address, hotWallet: hotWallet.address, treasury: treasury.address });
    const usdt = await deployTestToken(owner, TEST_TOKENS.USDT);
    // The treasury holds the token before anything is measured: every figure moves into an existing balance.
    await mintTestToken(owner, usdt, treasury.address, PAYMENT);
    await mintTestToken(owner, usdt, holder.address, 2n * PAYMENT);

    // Baselines: the holder pays one payment to a new address, then moves the rest (its whole balance) to the treasury.
    const transferToNewHolderGas = await sent(holder, usdt, erc20TransferData(named('bench-sweep-gas:new-holder'), PAYMENT));
    const transferToTreasuryGas = await sent(holder, usdt, erc20TransferData(treasury.address, PAYMENT));

    const sweeps: SweepGasRow[] = [];
    for (const n of batches) {
      const salts = Array.from({ length: n }, (_, i) => saltFor('bench-sweep-gas', `${n}:${i}`));
      for (const salt of salts) await mintTestToken(owner, usdt, depositAddress(factory.factory, factory.implementation, salt), PAYMENT);
      const gas = await sent(hotWallet, factory.factory, sweepCallData({ token: usdt, salts }));
      sweeps.push({ deposits: n, gas, perDeposit: gas / BigInt(n) });
    }
    return { transferToTreasuryGas, transferToNewHolderGas, sweeps };
  } finally {
    provider.destroy();
    await anvil.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const batches = (process.argv[2] ?? '1,10,50').split(',').map(Number);
  benchSweepGas({ batches })
    .then((result) => console.log(JSON.stringify(result, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
