import { parseEther, Wallet } from 'ethers';
import type { HDNodeWallet, JsonRpcProvider } from 'ethers';
import { mintTestToken } from '../../infra/local/dev/deploy.js';

/**
 * An ordinary wallet on a local anvil chain, as a payer or a subscriber owns one: a fresh key, 1 ETH for gas from the
 * chain's first account, and `units` of a test token that account owns.
 */
export async function fundedWallet(chain: JsonRpcProvider, token: string, units: bigint): Promise<HDNodeWallet> {
  const owner = await chain.getSigner(0);
  const wallet = Wallet.createRandom().connect(chain);
  await (await owner.sendTransaction({ to: wallet.address, value: parseEther('1') })).wait();
  await mintTestToken(owner, token, wallet.address, units);
  return wallet;
}
