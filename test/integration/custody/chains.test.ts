/**
 * Custody on the local chains (anvil, the local TRON node, the local Solana node and the local KMS), one stack for
 * the file: SOL addresses (an Ed25519 KMS key per account, one under 20 concurrent calls, the losers' keys
 * scheduled for deletion), SOL deposits credited once at finality by the custody-solana worker, `sync` finding
 * deposits no scanner has seen on ETH, TRX and SOL and crediting each once, `dev deposit` through the real CLI, and
 * SOL withdrawals signed by the account's key, paid by the platform's fee payer and sent by the custody-solana worker
 * (completed at finality, re-signed only past expiry, held for review until approved; the main account's refused).
 * Blocks are mined by hand (EVM automine, `/_local/mine`, `mine()`); no assertion depends on timing.
 */
import { DescribeKeyCommand, KMSClient, ListKeysCommand } from '@aws-sdk/client-kms';
import { jest } from '@jest/globals';
import { JsonRpcProvider } from 'ethers';
import { withdrawalRoutes } from '../../../functions/withdrawals/routes.js';
import { randomKeypair } from '../../../infra/local/solana.js';
import type { handler as CustodySolana } from '../../../functions/custody-solana/handler.js';
import { main } from '../../../scripts/gateway.js';
import { KmsEd25519Signer } from '../../../shared/chain/signer/kms-ed25519-signer.js';
import { createApi } from '../../../shared/http/pipeline.js';
import { systemClock } from '../../../shared/domain/clock.js';
import { toBaseUnits } from '../../../shared/domain/money.js';
import { withdrawalsRuntime } from '../../../shared/runtime/withdrawals.js';
import { dynamoWithdrawals } from '../../../shared/store/withdrawals.js';
import { decideReview, setReviewPolicy } from '../../../shared/usecases/custody/review.js';
import { solanaPollerRuntime } from '../../../shared/runtime/custody-solana.js';
import { SolanaRpc } from '../../../shared/chain/solana/rpc.js';
import { pollSolanaDeposits } from '../../../shared/usecases/custody/solana-deposits.js';
import { solanaAddressDeposits } from '../../../shared/chain/solana/deposit-source.js';
import { tokenContract } from '../../../shared/runtime/currencies.js';
import { config } from '../../../shared/config/config.js';
import { dynamoCustodyAddresses, dynamoCustodyDeposits, dynamoCustodyPolicies } from '../../../shared/store/custody.js';
import { getBalance } from '../../../shared/store/ledger.js';
import { startTestStack } from '../../support/stack.js';
import type { TestStack } from '../../support/stack.js';
import { buildContractsOutOfProcess } from '../chain/contracts-build.js';
import { caller, putFixedRates, tenantWithToken } from '../payments/support.js';
import { custodyApi } from '../../support/custody.js';

let stack: TestStack;
let kms: KMSClient;
let evm: JsonRpcProvider;
let merchant: { tenantId: string; bearer: string };
let custody: ReturnType<typeof caller>;
let custodySolana: typeof CustodySolana;

const CURRENCY = { ETH: 'USDTERC20', TRX: 'USDTTRC20', SOL: 'USDTSOL' } as const;
const usdt = (blockchain: keyof typeof CURRENCY, accountId: string) =>
  getBalance(merchant.tenantId, `custody:${accountId}`, CURRENCY[blockchain]).then((b) => b.amount);
const mineTron = async (count: number) => {
  const res = await fetch(`${stack.stackJson.rpcUrls.TRX}/_local/mine`, { method: 'POST', body: JSON.stringify({ count }) });
  expect(res.ok).toBe(true);
};
/** One pass of the custody-solana worker (its budget ends after the first pass). */
const pollSolana = () => custodySolana(undefined, { getRemainingTimeInMillis: () => 16_000 });
const newAccount = async (name: string): Promise<string> => (await custody('POST', '/custody/accounts', { body: { name } })).body.account_id as string;
const sync = async (accountId: string) => {
  const res = await custody('POST', `/custody/accounts/${accountId}/sync`);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ success: true, account_id: accountId, last_synced: expect.any(String), message: expect.any(String) });
  const [, found, credited] = /(\d+) new deposits? found, (\d+) deposits? credited/.exec(res.body.message as string) ?? [];
  return { found: Number(found), credited: Number(credited), message: res.body.message as string };
};

/** Runs the CLI as `npm run gateway -- ...` would, and returns its JSON answer. */
async function cli(args: string[]): Promise<Record<string, string>> {
  const printed: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((text: string) => void printed.push(text));
  try {
    expect(await main([...args, '--json'])).toBe(0);
  } finally {
    log.mockRestore();
  }
  return JSON.parse(printed.join('\n')) as Record<string, string>;
}

beforeAll(async () => {
  await buildContractsOutOfProcess();
  // EVM automine: a block per transaction, others by hand. TRON and Solana also produce blocks on their own.
  stack = await startTestStack({ anvil: true, contracts: true, tron: true, solana: true, pollers: false, http: false }, { blockTimeSeconds: null });
  process.env.GATEWAY_LOCAL_DIR = stack.dataDir;
  kms = new KMSClient({
    endpoint: stack.env.AWS_ENDPOINT_URL_KMS,
    region: 'us-east-1',
    credentials: { accessKeyId: stack.env.AWS_ACCESS_KEY_ID ?? '', secretAccessKey: stack.env.AWS_SECRET_ACCESS_KEY ?? '' },
  });
  evm = new JsonRpcProvider(stack.stackJson.rpcUrls.ETH, undefined, { batchMaxCount: 1, cacheTimeout: -1, staticNetwork: true });
  // USDTSOL too: a SOL custody withdrawal is valued in USD against the tenant's withdrawal limits.
  await putFixedRates(new Date(), { USDTSOL: '1' });
  merchant = await tenantWithToken('Custody on chains');
  custody = caller(custodyApi(), () => merchant.bearer);
  // The worker wires itself from the stack's environment when it loads.
  ({ handler: custodySolana } = await import('../../../functions/custody-solana/handler.js'));
});

afterAll(async () => {
  delete process.env.GATEWAY_LOCAL_DIR;
  evm?.destroy();
  kms?.destroy();
  await stack?.stop();
});

describe('SOL addresses', () => {
  it('are one per account under 20 concurrent calls: an Ed25519 KMS key kept with the address, never shown, the others scheduled for deletion', async () => {
    const before = new Set(((await kms.send(new ListKeysCommand({}))).Keys ?? []).map((k) => k.KeyId));
    const accountId = await newAccount('Solana treasury');
    const answers = await Promise.all(Array.from({ length: 20 }, () => custody('POST', `/custody/accounts/${accountId}/addresses/SOL`)));
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    const addresses = new Set(answers.map((r) => r.body.address as string));
    expect(addresses.size).toBe(1);
    expect(answers.filter((r) => r.body.is_new === true)).toHaveLength(1);
    expect(Object.keys(answers[0]?.body ?? {}).sort()).toEqual(['account_id', 'address', 'blockchain', 'created_at', 'is_new', 'qr_code']);
    const [address] = [...addresses];

    const stored = await dynamoCustodyAddresses.get(merchant.tenantId, accountId, 'SOL');
    expect(stored?.keyId).toEqual(expect.any(String));
    expect(await new KmsEd25519Signer(kms, stored?.keyId ?? '').getAddress()).toBe(address);

    // Every key made for this account but the stored one waits for deletion (KMS's shortest window).
    const made = ((await kms.send(new ListKeysCommand({}))).Keys ?? []).filter((k) => !before.has(k.KeyId)).map((k) => k.KeyId as string);
    expect(made.length).toBeGreaterThanOrEqual(1);
    const states = await Promise.all(made.map(async (id) => [id, (await kms.send(new DescribeKeyCommand({ KeyId: id }))).KeyMetadata?.KeyState] as const));
    expect(states.filter(([, state]) => state === 'Enabled').map(([id]) => id)).toEqual([stored?.keyId]);
    expect(states.filter(([, state]) => state === 'PendingDeletion')).toHaveLength(made.length - 1);

    const listed = await custody('GET', `/custody/accounts/${accountId}/addresses`);
    expect(listed.body).toEqual([expect.objectContaining({ blockchain: 'SOL', address, last_deposit_at: null })]);
    expect(listed.body[0]).not.toHaveProperty('key_id');
  });
});

describe('SOL deposits', () => {
  it('are recorded when seen and credited once, at finality, by the custody-solana worker; nothing is swept', async () => {
    const node = stack.solana;
    if (!node) throw new Error('no local Solana node');
    const accountId = await newAccount('Solana deposits');
    const address = (await custody('POST', `/custody/accounts/${accountId}/addresses/SOL`)).body.address as string;
    const signature = await node.transferToken(address, 5_250_000n);
    // Its block, then the one that confirms it.
    node.mine(2);

    await pollSolana();
    const seen = (await dynamoCustodyDeposits.open('SOL')).filter((d) => d.accountId === accountId);
    expect(seen.map((d) => [d.txHash, d.status, d.amount, d.heldAtAddress])).toEqual([[signature, 'confirming', '5.25', true]]);
    expect(seen[0]?.depositId).toMatch(new RegExp(`^SOL:${signature}:\\d+$`));
    expect(await usdt('SOL', accountId)).toBe('0');

    node.mine(40);
    await pollSolana();
    const deposit = await dynamoCustodyDeposits.get(merchant.tenantId, seen[0]?.depositId ?? '');
    expect([deposit?.status, deposit?.creditedAt, deposit?.sweepTxHash]).toEqual(['credited', expect.any(String), null]);
    expect(await usdt('SOL', accountId)).toBe('5.25');
    // Credited is its end: out of the work queue, so no pass asks for a sweep.
    expect((await dynamoCustodyDeposits.open('SOL')).filter((d) => d.accountId === accountId)).toEqual([]);
    const balances = await custody('GET', `/custody/accounts/${accountId}/balances`);
    expect(balances.body.balances.find((b: { blockchain: string }) => b.blockchain === 'SOL')).toMatchObject({ balance: 5.25, available: 5.25, locked: 0 });
    const listed = await custody('GET', `/custody/accounts/${accountId}/addresses`);
    expect(listed.body[0].last_deposit_at).toBe(deposit?.creditedAt);

    // Later passes credit nothing twice; the cursor is past the transfer.
    node.mine(2);
    await pollSolana();
    expect(await usdt('SOL', accountId)).toBe('5.25');
    expect((await dynamoCustodyAddresses.get(merchant.tenantId, accountId, 'SOL'))?.historyCursor).toBe(signature);

    // A pass with nothing new costs one getSlot, and one getSignaturesForAddress per SOL address (two so far).
    const runtime = solanaPollerRuntime();
    if (!runtime) throw new Error('Solana is configured on this stack');
    const rpc = new SolanaRpc(node.url);
    const pass = await pollSolanaDeposits({ ...runtime, solana: solanaAddressDeposits(rpc, tokenContract('USDTSOL', config()) ?? '') });
    expect([pass, rpc.calls]).toEqual([{ addresses: 2, recorded: 0, credited: 0, failed: 0 }, 3]);
  });
});

describe('sync, with deposits sent by `dev deposit`', () => {
  it('finds deposits no scanner has seen on ETH, TRX and SOL, credits each once at its confirmations, and a later sync credits nothing', async () => {
    const accountId = await newAccount('Synced treasury');
    // Addresses made by the CLI through the API's use case, funds from the local chains' test accounts and faucets.
    const eth = await cli(['dev', 'deposit', '--custody', accountId, '--blockchain', 'ETH', '--amount', '12']);
    const trx = await cli(['dev', 'deposit', '--custody', accountId, '--blockchain', 'TRX', '--amount', '7.5', '--tenant', merchant.tenantId]);
    const sol = await cli(['dev', 'deposit', '--custody', accountId, '--blockchain', 'sol', '--amount', '3']);
    expect([eth.currency, eth.amount, trx.currency, sol.currency]).toEqual(['USDTERC20', '12', 'USDTTRC20', 'USDTSOL']);
    const listed = (await custody('GET', `/custody/accounts/${accountId}/addresses`)).body as { blockchain: string; address: string }[];
    expect(Object.fromEntries(listed.map((a) => [a.blockchain, a.address]))).toEqual({ ETH: eth.address, TRX: trx.address, SOL: sol.address });
    await mineTron(1);
    stack.solana?.mine(2);

    const first = await sync(accountId);
    expect(first.message).toMatch(/^3 addresses read on chain: 3 new deposits found/);
    // Recorded with the ids the scanners would give them: a second finding is the same deposit.
    expect((await dynamoCustodyDeposits.get(merchant.tenantId, `ETH:${eth.transaction_hash}:0`))?.status).toBe('confirming');
    expect((await dynamoCustodyDeposits.get(merchant.tenantId, `TRX:${trx.transaction_hash}:0`))?.amount).toBe('7.5');

    // Past every chain's confirmations (2 locally on ETH and TRX; Solana's finality).
    await evm.send('anvil_mine', ['0x2']);
    await mineTron(2);
    stack.solana?.mine(40);
    const second = await sync(accountId);
    expect(second.found).toBe(0);
    expect(first.credited + second.credited).toBe(3);
    expect([await usdt('ETH', accountId), await usdt('TRX', accountId), await usdt('SOL', accountId)]).toEqual(['12', '7.5', '3']);

    expect(await sync(accountId)).toMatchObject({ found: 0, credited: 0 });
    expect([await usdt('ETH', accountId), await usdt('TRX', accountId), await usdt('SOL', accountId)]).toEqual(['12', '7.5', '3']);
  });
});

describe('SOL withdrawals', () => {
  const node = () => {
    if (!stack.solana) throw new Error('no local Solana node');
    return stack.solana;
  };
  const withdrawal = async (id: string) => {
    const w = await dynamoWithdrawals.get(merchant.tenantId, id);
    if (!w) throw new Error(`no withdrawal ${id}`);
    return w;
  };
  const withdraw = (accountId: string, amount: number, destination: string) =>
    custody('POST', '/custody/withdraw', { body: { account_id: accountId, blockchain: 'SOL', amount, destination_address: destination } });
  /** Base units of USDT the destination of a custody withdrawal answer receives. */
  const netUnits = (answer: { body: Record<string, unknown> }) => toBaseUnits(String(answer.body.net_amount), 6);

  /** A SOL account holding `units` of USDT from a real deposit, credited at finality by the worker. */
  async function fundedAccount(name: string, units: bigint): Promise<{ accountId: string; address: string }> {
    const accountId = await newAccount(name);
    const address = (await custody('POST', `/custody/accounts/${accountId}/addresses/SOL`)).body.address as string;
    await node().transferToken(address, units);
    node().mine(40);
    await pollSolana();
    expect(await usdt('SOL', accountId)).toBe(String(Number(units) / 1e6));
    return { accountId, address };
  }

  it('are signed by the account key with the fee payer paying, persisted before sending, and completed at finality: net_amount arrives, the whole amount leaves the ledger', async () => {
    const { accountId, address } = await fundedAccount('Solana payouts', 20_000_000n);
    const destination = randomKeypair().address;
    const made = await withdraw(accountId, 12, destination);
    expect([made.status, made.body.error]).toEqual([200, undefined]);
    expect(made.body).toMatchObject({ blockchain: 'SOL', amount: 12, status: 'pending', review: null });
    const id = made.body.withdrawal_id as string;

    await pollSolana();
    const sent = await withdrawal(id);
    expect([sent.status, sent.solanaAttempts?.length, sent.dispatchRefusal ?? null]).toEqual(['processing', 1, null]);
    node().mine(40);
    await pollSolana();

    const done = await withdrawal(id);
    expect([done.status, done.transactionHash]).toEqual(['completed', sent.solanaAttempts?.[0]?.signature]);
    expect(node().usdtBalance(destination)).toBe(netUnits(made));
    expect(node().usdtBalance(address)).toBe(20_000_000n - netUnits(made));
    const row = await getBalance(merchant.tenantId, `custody:${accountId}`, 'USDTSOL');
    expect([row.amount, row.locked]).toEqual(['8', '0']);
    // Later passes change nothing.
    node().mine(2);
    await pollSolana();
    expect([(await withdrawal(id)).version, node().usdtBalance(destination)]).toEqual([done.version, netUnits(made)]);
  });

  it('sign a new transaction only once the first can never land: exactly one transfer executes', async () => {
    const { accountId } = await fundedAccount('Solana expiry', 5_000_000n);
    const destination = randomKeypair().address;
    const made = await withdraw(accountId, 3, destination);
    const id = made.body.withdrawal_id as string;

    // The first send and its re-send are acknowledged and lost, like dropped packets.
    node().dropNextSends(2);
    await pollSolana();
    const [first] = (await withdrawal(id)).solanaAttempts ?? [];
    if (!first) throw new Error('no attempt persisted');
    // Not landed, still valid: the same bytes are sent again, nothing new is signed.
    await pollSolana();
    expect((await withdrawal(id)).solanaAttempts).toEqual([first]);

    // Past its lastValidBlockHeight, finalized: it can never land.
    node().mine(Math.max(0, first.lastValidBlockHeight - node().head().height) + 40);
    await pollSolana();
    const attempts = (await withdrawal(id)).solanaAttempts ?? [];
    expect(attempts).toHaveLength(2);
    expect(attempts[1]?.signature).not.toBe(first.signature);
    node().mine(40);
    await pollSolana();

    expect(await withdrawal(id)).toMatchObject({ status: 'completed', transactionHash: attempts[1]?.signature });
    const statuses = await new SolanaRpc(node().url).getSignatureStatuses(
      attempts.map((a) => a.signature),
      { searchTransactionHistory: true },
    );
    expect(statuses.map((st) => st?.err ?? (st ? 'ok' : null))).toEqual([null, 'ok']);
    expect(node().usdtBalance(destination)).toBe(netUnits(made));
    expect(await usdt('SOL', accountId)).toBe('2');
  });

  it('held for review is not sent until approved', async () => {
    await setReviewPolicy({ tenant_id: merchant.tenantId, threshold: '5', allowlist: null }, { policies: dynamoCustodyPolicies });
    try {
      const { accountId } = await fundedAccount('Solana reviewed', 10_000_000n);
      const destination = randomKeypair().address;
      const made = await withdraw(accountId, 6, destination);
      expect(made.body.review).toEqual({ status: 'awaiting_review', reasons: ['amount_over_threshold'] });
      const id = made.body.withdrawal_id as string;
      await pollSolana();
      node().mine(40);
      await pollSolana();
      const held = await withdrawal(id);
      expect([held.status, held.solanaAttempts]).toEqual(['pending', undefined]);
      expect(node().usdtBalance(destination)).toBe(0n);

      await decideReview(id, { decision: 'approve', by: 'ops' }, { withdrawals: dynamoWithdrawals, clock: systemClock });
      await pollSolana();
      node().mine(40);
      await pollSolana();
      expect((await withdrawal(id)).status).toBe('completed');
      expect(node().usdtBalance(destination)).toBe(netUnits(made));
    } finally {
      await setReviewPolicy({ tenant_id: merchant.tenantId, threshold: null, allowlist: null }, { policies: dynamoCustodyPolicies });
    }
  });

  it('from the main account stay refused: USDTSOL is not a withdrawal currency there', async () => {
    const withdrawals = caller(createApi(withdrawalRoutes, withdrawalsRuntime()), () => merchant.bearer);
    const res = await withdrawals('POST', '/withdrawal/', { body: { amount: '5', currency: 'USDTSOL', address: randomKeypair().address } });
    expect([res.status, res.body.error.code]).toEqual([400, 'invalid_currency']);
  });
});
