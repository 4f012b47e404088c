import { randomUUID } from 'node:crypto';
import { pubECDSA, randomPrivateKeyBytes } from '@scure/btc-signer/utils.js';
import { startBitcoinNode } from '../../../infra/local/bitcoin.js';
import type { BitcoinNode } from '../../../infra/local/bitcoin.js';
import { devPay } from '../../../infra/local/dev/dev-pay.js';
import { depositAddress } from '../../../shared/chain/btc/p2wsh.js';
import { CURRENCIES } from '../../../shared/domain/currencies.js';
import { openPayment } from '../../../shared/domain/payments.js';
import { quote } from '../../../shared/domain/payment-quote.js';
import { dynamoPayments } from '../../../shared/store/payments.js';
import { startTestTable } from '../../support/dynamodb.js';
import type { TestTable } from '../../support/dynamodb.js';
import { aPayment, checkoutIdOf } from '../../support/fixtures/payments.js';

/**
 * `dev pay` on a BTC payment (stored on DynamoDB Local, its address a regtest P2WSH deposit address): the local
 * Bitcoin node's faucet pays the payment's address the amount still due, or the amount given, in satoshis.
 */
let table: TestTable;
let node: BitcoinNode;

beforeAll(async () => {
  table = await startTestTable();
  node = await startBitcoinNode({ autoMine: false });
});
afterAll(async () => {
  await node?.close();
  await table?.stop();
});

async function btcPayment(price: string): Promise<{ id: string; address: string }> {
  const currency = CURRENCIES.BTC;
  const q = quote({ price, priceCurrency: 'USD', currency, rates: { BTC: '50000' }, feePercent: '1', isFeePaidByUser: false });
  const id = randomUUID();
  const tenantId = randomUUID();
  const { address } = depositAddress(tenantId, id, pubECDSA(randomPrivateKeyBytes()), 'local');
  const now = new Date();
  const payment = aPayment(
    {
      id,
      tenantId,
      currency: 'BTC',
      network: currency.network,
      token: currency.token,
      decimals: currency.decimals,
      priceAmount: price,
      amountUsd: q.amountUsd,
      amountCrypto: q.amountCrypto,
      priceCrypto: q.priceCrypto,
      fee: q.fee,
      address,
      salt: '',
      checkoutId: checkoutIdOf(id),
    },
    now,
  );
  await dynamoPayments.create({ change: openPayment(payment, now), family: 'btc', dailyLimitUsd: null }, now);
  return { id, address };
}

const paidTo = async (txid: string, address: string): Promise<number[]> => {
  const tx = (await (await fetch(`${node.url}/tx/${txid}`)).json()) as { vout: { scriptpubkey_address?: string; value: number }[] };
  return tx.vout.filter((o) => o.scriptpubkey_address === address).map((o) => o.value);
};

it('pays a BTC payment from the node faucet: the amount due by default, in satoshis, or the amount given', async () => {
  const chains = { rpcUrls: { BTC: node.url }, tokens: {} };
  const due = await btcPayment('100');
  const paid = await devPay(due.id, undefined, chains);
  expect(paid).toMatchObject({ amount: '0.002', currency: 'BTC', address: due.address, from: 'local Bitcoin faucet' });
  // 100 USD at 50,000 USD per BTC: 0.002 BTC, which is 200,000 satoshis, in the mempool for the next block.
  expect(await paidTo(paid.transaction_hash, due.address)).toEqual([200_000]);
  expect(node.chain.mempool().map((e) => e.tx.txid)).toContain(paid.transaction_hash);

  const partly = await btcPayment('100');
  const some = await devPay(partly.id, '0.00012345', chains);
  expect(await paidTo(some.transaction_hash, partly.address)).toEqual([12_345]);
  node.mine(1);
  expect(node.chain.entry(some.transaction_hash)?.height).toBe(node.chain.tip().height);
});
