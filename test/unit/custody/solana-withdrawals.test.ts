import type { CustodyAddressState } from '../../../shared/domain/custody.js';
import { openDeposit, depositTransition } from '../../../shared/domain/custody.js';
import type { WithdrawalState } from '../../../shared/domain/withdrawals.js';
import { openWithdrawal } from '../../../shared/domain/withdrawals.js';
import type { SignedSolanaTransfer, SolanaTransferFate, SolanaTransferInput, SolanaTransferPort } from '../../../shared/usecases/custody/ports.js';
import { sendSolanaWithdrawals } from '../../../shared/usecases/custody/solana-withdrawals.js';
import { VirtualClock } from '../../support/clock.js';
import { InMemoryLedger } from '../../support/fakes/ledger.js';
import { InMemoryWithdrawals } from '../../support/fakes/withdrawals.js';

/**
 * Custody's SOL withdrawals over the SolanaTransferPort (the chain behind it faked): each attempt persisted before
 * it is sent, the same bytes sent again while it may land, a new one signed only once the port says every earlier
 * one expired, settled only at finality (succeeded or failed), and nothing signed for an address that cannot pay.
 */
const TENANT = 't1';
const ACCOUNT = 'a1';
const OWNER = 'So1CustodyAddress1111111111111111111111111';
const RECIPIENT = 'So1Recipient111111111111111111111111111111';

/** A fake chain: what the use case asked of it, in order, and the fate it answers next. */
class FakeSolana implements SolanaTransferPort {
  readonly calls: string[] = [];
  readonly signedInputs: SolanaTransferInput[] = [];
  balance = 20_000_000n;
  next: SolanaTransferFate = { kind: 'pending' };
  sendAnswer: 'sent' | 'stale' | Error = 'sent';
  private signed = 0;
  /** The withdrawal as stored when each send was made (persist before send). */
  readonly storedAtSend: (WithdrawalState | null)[] = [];

  constructor(private readonly stored: () => Promise<WithdrawalState | null>) {}

  async tokenBalance(owner: string): Promise<bigint> {
    this.calls.push(`balance ${owner}`);
    return this.balance;
  }
  async signTransfer(input: SolanaTransferInput): Promise<SignedSolanaTransfer> {
    this.signedInputs.push(input);
    const n = ++this.signed;
    this.calls.push(`sign ${n}`);
    return { signature: `sig${n}`, lastValidBlockHeight: 100 * n, wire: `wire${n}` };
  }
  async send(wire: string): Promise<'sent' | 'stale'> {
    this.calls.push(`send ${wire}`);
    this.storedAtSend.push(await this.stored());
    if (this.sendAnswer instanceof Error) throw this.sendAnswer;
    return this.sendAnswer;
  }
  async fate(attempts: readonly Pick<SignedSolanaTransfer, 'signature' | 'lastValidBlockHeight'>[]): Promise<SolanaTransferFate> {
    this.calls.push(`fate ${attempts.map((a) => a.signature).join(',')}`);
    return this.next;
  }
}

async function setup() {
  const clock = new VirtualClock(new Date('2026-11-27T10:00:00.000Z'));
  const ledger = new InMemoryLedger();
  const withdrawals = new InMemoryWithdrawals(ledger);
  // 20 USDT credited to the custody account by a deposit.
  const deposit = openDeposit(
    {
      tenantId: TENANT,
      accountId: ACCOUNT,
      depositId: 'SOL:dep:0',
      blockchain: 'SOL',
      network: 'SOL',
      currency: 'USDTSOL',
      amount: '20',
      address: OWNER,
      txHash: 'dep',
      blockNumber: 1,
      blockHash: '',
      confirmations: 0,
      heldAtAddress: true,
    },
    clock.now(),
  ).state;
  const credit = depositTransition(deposit, { kind: 'confirmations', confirmations: 32, needed: 32 }, clock.now()).entry;
  if (!credit) throw new Error('no credit');
  await ledger.post({ tenantId: TENANT, entryId: credit.entryId, entry: credit.entry, now: clock.now() });
  const w = await withdrawals.create(
    {
      change: openWithdrawal(
        {
          id: 'w1',
          tenantId: TENANT,
          currency: 'USDTSOL',
          network: 'SOL',
          token: 'USDT',
          amount: '12',
          networkFee: '0.5',
          platformFee: '0',
          totalFee: '0.5',
          totalDeducted: '12.5',
          address: RECIPIENT,
          customId: null,
          callbackUrl: null,
          accountId: null,
          priceAmount: null,
          priceCurrency: null,
          custodyAccountId: ACCOUNT,
        },
        clock.now(),
      ),
      dayTotal: null,
    },
    clock.now(),
  );
  const address = { tenantId: TENANT, accountId: ACCOUNT, blockchain: 'SOL', address: OWNER, keyId: 'key-a1' } as unknown as CustodyAddressState;
  const solana = new FakeSolana(() => withdrawals.get(TENANT, w.id));
  const deps = { withdrawals, addresses: { get: async () => address }, solana, clock };
  const stored = async () => (await withdrawals.get(TENANT, w.id)) as WithdrawalState;
  return { deps, solana, stored, ledger };
}

it("signs the account's transfer, persists it before sending, sends the same bytes again while it may land, and settles only at finality", async () => {
  const { deps, solana, stored } = await setup();
  expect(await sendSolanaWithdrawals(deps)).toEqual({ signed: 1, resent: 0, completed: 0, failed: 0 });
  expect(solana.signedInputs).toEqual([{ owner: OWNER, keyId: 'key-a1', recipient: RECIPIENT, amount: 12_000_000n, decimals: 6 }]);
  expect(solana.calls).toEqual([`balance ${OWNER}`, 'sign 1', 'send wire1']);
  // When it was sent, the attempt was already stored, the withdrawal processing.
  expect(solana.storedAtSend[0]).toMatchObject({ status: 'processing', solanaAttempts: [{ signature: 'sig1', lastValidBlockHeight: 100, wire: 'wire1' }] });

  solana.calls.length = 0;
  expect(await sendSolanaWithdrawals(deps)).toEqual({ signed: 0, resent: 1, completed: 0, failed: 0 });
  expect(solana.calls).toEqual(['fate sig1', 'send wire1']);

  // Landed but not final: nothing settles, nothing is sent.
  solana.calls.length = 0;
  solana.next = { kind: 'landed', signature: 'sig1', final: false, error: null };
  expect(await sendSolanaWithdrawals(deps)).toEqual({ signed: 0, resent: 0, completed: 0, failed: 0 });
  expect([solana.calls, (await stored()).status]).toEqual([['fate sig1'], 'processing']);

  solana.next = { kind: 'landed', signature: 'sig1', final: true, error: null };
  expect(await sendSolanaWithdrawals(deps)).toEqual({ signed: 0, resent: 0, completed: 1, failed: 0 });
  expect(await stored()).toMatchObject({ status: 'completed', transactionHash: 'sig1' });
});

it('signs a new attempt only once every earlier one expired, and sends only the newest again', async () => {
  const { deps, solana, stored } = await setup();
  // The first send fails (a lost node): the attempt stays persisted, judged next pass.
  solana.sendAnswer = new Error('connection reset');
  await sendSolanaWithdrawals(deps);
  solana.sendAnswer = 'stale';
  solana.next = { kind: 'expired' };
  expect(await sendSolanaWithdrawals(deps)).toEqual({ signed: 1, resent: 0, completed: 0, failed: 0 });
  expect((await stored()).solanaAttempts?.map((a) => a.signature)).toEqual(['sig1', 'sig2']);

  solana.calls.length = 0;
  solana.next = { kind: 'pending' };
  expect(await sendSolanaWithdrawals(deps)).toEqual({ signed: 0, resent: 1, completed: 0, failed: 0 });
  expect(solana.calls).toEqual(['fate sig1,sig2', 'send wire2']);

  solana.next = { kind: 'landed', signature: 'sig2', final: true, error: '{"InstructionError":[2,{"Custom":1}]}' };
  expect(await sendSolanaWithdrawals(deps)).toEqual({ signed: 0, resent: 0, completed: 0, failed: 1 });
  expect(await stored()).toMatchObject({ status: 'failed', failureReason: 'transaction sig2 failed on chain: {"InstructionError":[2,{"Custom":1}]}' });
});

it('fails without signing anything when the address cannot cover the amount, returning the hold', async () => {
  const { deps, solana, stored, ledger } = await setup();
  solana.balance = 11_999_999n;
  expect(await sendSolanaWithdrawals(deps)).toEqual({ signed: 0, resent: 0, completed: 0, failed: 1 });
  expect(solana.calls).toEqual([`balance ${OWNER}`]);
  expect(await stored()).toMatchObject({ status: 'failed', failureReason: "the account's SOL address holds 11999999 base units of USDT, 12000000 needed" });
  expect((await ledger.balance(TENANT, `custody:${ACCOUNT}`, 'USDTSOL')).locked).toBe('0');
});
