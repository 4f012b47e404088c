import { ConflictError } from '../../../shared/domain/errors.js';
import type { CustodyDepositFact, CustodyDepositState } from '../../../shared/domain/custody.js';
import { custodySweepOf, custodySweepReference, depositTransition, isFollowedDeposit, openDeposit } from '../../../shared/domain/custody.js';

/** A custody deposit's lifecycle: confirming -> credited (one entry) -> sweeping -> swept; dropped on a reorganisation. */
const now = new Date('2026-11-25T10:00:00.000Z');
const opened = () =>
  openDeposit(
    {
      tenantId: 't1',
      accountId: 'a1',
      depositId: 'ETH:0xabc:0',
      blockchain: 'ETH',
      network: 'ETH',
      currency: 'USDTERC20',
      amount: '40',
      address: '0x00000000000000000000000000000000000000aa',
      txHash: '0xabc',
      blockNumber: 10,
      blockHash: '0xb10',
      confirmations: 1,
    },
    now,
  );

it('credits once the confirmations are reached, with one entry to the account, and announces it', () => {
  const { state, events } = opened();
  expect([state.status, events.map((e) => e.key)]).toEqual(['confirming', ['status:confirming']]);
  const short = depositTransition(state, { kind: 'confirmations', confirmations: 1, needed: 2 }, now);
  expect([short.state.status, short.entry, short.events]).toEqual(['confirming', null, []]);
  const credited = depositTransition(state, { kind: 'confirmations', confirmations: 2, needed: 2 }, now);
  expect(credited.state).toMatchObject({ status: 'credited', confirmations: 2, creditedAt: now.toISOString() });
  expect(credited.entry?.entryId).toBe('custody_deposit:ETH:0xabc:0');
  expect(credited.entry?.entry.legs).toEqual([
    { from: { account: 'platform:external', field: 'amount' }, to: { account: 'custody:a1', field: 'amount' }, amount: '40' },
  ]);
  expect(credited.events.map((e) => [e.type, e.payload.status, e.payload.previous_status])).toEqual([['custody_deposit_update', 'credited', 'confirming']]);
  const sweeping = depositTransition(credited.state, { kind: 'sweep_started' }, now).state;
  expect(depositTransition(sweeping, { kind: 'sweep_failed' }, now).state.status).toBe('credited');
  expect(depositTransition(sweeping, { kind: 'swept', txHash: '0xs' }, now).state).toMatchObject({ status: 'swept', sweepTxHash: '0xs' });
});

it('refuses facts that do not apply, so nothing is credited twice or after a drop', () => {
  const confirming = opened().state;
  const dropped = depositTransition(confirming, { kind: 'reorged' }, now).state;
  const credited = depositTransition(confirming, { kind: 'confirmations', confirmations: 5, needed: 2 }, now).state;
  const refused: [CustodyDepositState, CustodyDepositFact][] = [
    [credited, { kind: 'confirmations', confirmations: 6, needed: 2 }],
    [credited, { kind: 'reorged' }],
    [dropped, { kind: 'confirmations', confirmations: 6, needed: 2 }],
    [confirming, { kind: 'sweep_started' }],
    [credited, { kind: 'swept', txHash: '0x' }],
  ];
  for (const [state, fact] of refused) expect(() => depositTransition(state, fact, now)).toThrow(ConflictError);
});

it("ends credited when its funds stay at the account's own address (Solana): out of the work queue, never swept", () => {
  const held = openDeposit(
    {
      tenantId: 't1',
      accountId: 'a1',
      depositId: 'SOL:5sig:1',
      blockchain: 'SOL',
      network: 'SOL',
      currency: 'USDTSOL',
      amount: '3',
      address: 'So1Address',
      txHash: '5sig',
      blockNumber: 120,
      blockHash: '',
      confirmations: 0,
      heldAtAddress: true,
    },
    now,
  ).state;
  expect(isFollowedDeposit(held)).toBe(true);
  const credited = depositTransition(held, { kind: 'confirmations', confirmations: 32, needed: 32 }, now);
  expect([credited.state.status, credited.entry?.entryId]).toEqual(['credited', 'custody_deposit:SOL:5sig:1']);
  expect(isFollowedDeposit(credited.state)).toBe(false);
  expect(() => depositTransition(credited.state, { kind: 'sweep_started' }, now)).toThrow(ConflictError);
  // A forwarder's credited deposit stays followed until it is swept.
  const swept = depositTransition(opened().state, { kind: 'confirmations', confirmations: 2, needed: 2 }, now).state;
  expect(isFollowedDeposit(swept)).toBe(true);
});

it('names its sweep so the chain-tx result finds it again', () => {
  const ref = custodySweepReference({ tenantId: 't1', depositId: 'TRX:0xabc:3' });
  expect(custodySweepOf(ref)).toEqual({ tenantId: 't1', depositId: 'TRX:0xabc:3' });
  expect(custodySweepOf('payment:t1:p1')).toBeNull();
});
