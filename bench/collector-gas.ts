/**
 * Gas of a pulled subscription charge: on a fresh anvil, the subscription collector (infra/local/dev/deploy.ts,
 * charged by the hot wallet) and a 6-decimal test USDT; N subscribers each approve the collector for twelve periods
 * and authorise their own mandate (the `setup` call data of shared/chain/evm/collector.ts), then ONE
 * `chargeBatch` from the hot wallet charges every one of them the plan's amount for period 0, into the payee (the
 * gateway's address, which already holds the token). Its exact gas, divided by N, is set beside plain ERC-20
 * `transfer`s measured on the same chain:
 *
 * - a subscriber paying the same amount to the payee itself (an existing holder): what a pushed payment costs, the
 *   baseline of the goal (≤ 0.7x);
 * - the same to an address that never held the token (the baseline of the batch payout and sweep rows).
 *
 * Gas depends only on the code and the data (amounts, keys and addresses are fixed), so the figures are
 * deterministic. Starts its own anvil and stops it.
 *
 *   npx tsx bench/collector-gas.ts [N]
 */
import { pathToFileURL } from 'node:url';
import { JsonRpcProvider, Wallet, dataSlice, getAddress, id, toBeHex } from 'ethers';
import type { Signer } from 'ethers';
import { startAnvil } from '../infra/local/anvil.js';
import { deploySubscriptionCollector, deployTestToken, mintTestToken, TEST_TOKENS } from '../infra/local/dev/deploy.js';
import { chargeBatchData, chargeOutcomesOf, collectorSetup, mandatePeriodSeconds } from '../shared/chain/evm/collector.js';
import type { MandateTerms } from '../shared/chain/evm/collector.js';
import { erc20TransferData } from '../shared/chain/evm/erc20.js';

export interface CollectorGasResult {
  readonly charges: number;
  /** Exact gas of the one `chargeBatch` transaction. */
  readonly batchGas: bigint;
  /** `batchGas / charges` (rounded down). */
  readonly perCharge: bigint;
  /** A plain transfer of the same amount to the payee (which already holds the token). */
  readonly transferToPayeeGas: bigint;
  /** A plain transfer of the same amount to an address that never held the token. */
  readonly transferToNewHolderGas: bigint;
  /** `perCharge / transferToPayeeGas`. */
  readonly ratio: number;
}

/** A monthly plan of 12.5 USDT. */
const AMOUNT = 12_500_000n;
/** Fixed chain time of period 0's start (anvil's clock is set to it), so the call data is the same every run. */
const START = 1_900_000_000;
const named = (label: string): string => getAddress(dataSlice(id(label), 12));

async function sent(signer: Signer, to: string, data: string): Promise<bigint> {
  const receipt = await (await signer.sendTransaction({ to, data })).wait();
  if (!receipt || receipt.status !== 1) throw new Error(`transaction to ${to} failed`);
  return receipt.gasUsed;
}

export async function benchCollectorGas({ charges = 50 }: { readonly charges?: number } = {}): Promise<CollectorGasResult> {
  const anvil = await startAnvil();
  const provider = new JsonRpcProvider(anvil.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1, pollingInterval: 20 });
  try {
    const [owner, hotWallet, payee, holder] = await Promise.all([0, 1, 2, 3].map((i) => provider.getSigner(i)));
    if (!owner || !hotWallet || !payee || !holder) throw new Error('anvil has fewer than 4 dev accounts');
    await provider.send('evm_setNextBlockTimestamp', [START]);
    const collector = (await deploySubscriptionCollector(owner, { collector: hotWallet.address })).address;
    const usdt = await deployTestToken(owner, TEST_TOKENS.USDT);
    const { chainId } = await provider.getNetwork();
    // The payee holds the token before anything is measured: every figure moves into an existing balance.
    await mintTestToken(owner, usdt, payee.address, AMOUNT);
    await mintTestToken(owner, usdt, holder.address, 3n * AMOUNT);
    const transferToNewHolderGas = await sent(holder, usdt, erc20TransferData(named('bench-collector-gas:new-holder'), AMOUNT));
    const transferToPayeeGas = await sent(holder, usdt, erc20TransferData(payee.address, AMOUNT));

    const mandates: MandateTerms[] = [];
    for (let i = 0; i < charges; i++) {
      const subscriber = new Wallet(id(`bench-collector-gas:subscriber:${i}`), provider);
      await provider.send('anvil_setBalance', [subscriber.address, toBeHex(10n ** 18n)]);
      await mintTestToken(owner, usdt, subscriber.address, 12n * AMOUNT);
      const terms: MandateTerms = {
        subscriber: subscriber.address,
        token: usdt,
        payee: payee.address,
        perChargeCap: AMOUNT,
        perPeriodCap: AMOUNT,
        periodSeconds: mandatePeriodSeconds('month', 1),
        start: START,
        salt: BigInt(i + 1),
      };
      const setup = collectorSetup({ chainId: Number(chainId), collector, terms, allowance: 12n * AMOUNT });
      await sent(subscriber, setup.approve.to, setup.approve.data);
      await sent(subscriber, setup.authorize.to, setup.authorize.data);
      mandates.push(terms);
    }
    const receipt = await (
      await hotWallet.sendTransaction({ to: collector, data: chargeBatchData(mandates.map((mandate) => ({ mandate, period: 0n, amount: AMOUNT }))) })
    ).wait();
    if (!receipt || receipt.status !== 1) throw new Error('chargeBatch failed');
    const outcomes = chargeOutcomesOf(receipt.logs, collector);
    if (outcomes.length !== charges || outcomes.some((o) => !o.ok)) throw new Error(`chargeBatch charged ${outcomes.filter((o) => o.ok).length} of ${charges}`);
    const perCharge = receipt.gasUsed / BigInt(charges);
    return {
      charges,
      batchGas: receipt.gasUsed,
      perCharge,
      transferToPayeeGas,
      transferToNewHolderGas,
      ratio: Number(perCharge) / Number(transferToPayeeGas),
    };
  } finally {
    provider.destroy();
    await anvil.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchCollectorGas({ charges: Number(process.argv[2] ?? 50) })
    .then((result) => console.log(JSON.stringify(result, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
