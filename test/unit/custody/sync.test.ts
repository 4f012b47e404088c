import type { CustodyAccountState, CustodyAddressState, CustodyDepositChange, CustodyDepositState } from '../../../shared/domain/custody.js';
import { isFollowedDeposit } from '../../../shared/domain/custody.js';
import { ConflictError } from '../../../shared/domain/errors.js';
import type { TokenTransfer } from '../../../shared/usecases/deposits/ports.js';
import type { CustodyChainSource, CustodyDepositRepository, CustodyPorts } from '../../../shared/usecases/custody/ports.js';
import { syncAccount } from '../../../shared/usecases/custody/sync.js';
import { VirtualClock } from '../../support/clock.js';

/**
 * Custody sync over its chain port (`CustodyChainSource`: the scanner's deposit source and one address's
 * transfers), the chain faked: what it asks the chain, what it records and credits, and that it closes what it opened.
 */
const TENANT = 't1';
const ACCOUNT = '00000000-0000-4000-8000-000000000001';
const ADDRESS = '0x00000000000000000000000000000000000000AA';
const TOKEN = '0xToken';

class MemoryDeposits implements CustodyDepositRepository {
  readonly states = new Map<string, CustodyDepositState>();
  async get(_tenantId: string, depositId: string) {
    return this.states.get(depositId) ?? null;
  }
  async record(change: CustodyDepositChange) {
    if (this.states.has(change.state.depositId)) return false;
    this.states.set(change.state.depositId, { ...change.state, version: 1 });
    return true;
  }
  async save(previous: CustodyDepositState, change: CustodyDepositChange) {
    if (this.states.get(previous.depositId)?.version !== previous.version) throw new ConflictError('changed');
    const next = { ...change.state, version: previous.version + 1 };
    this.states.set(previous.depositId, next);
    return next;
  }
  async open(network: string) {
    return [...this.states.values()].filter((d) => d.network === network && isFollowedDeposit(d));
  }
}

const transfer = (to: string, value: bigint, logIndex: number): TokenTransfer => ({
  token: TOKEN.toLowerCase(),
  to,
  value,
  txHash: '0xh',
  logIndex,
  blockNumber: 8,
  blockHash: '0xb8',
});

function setup(read: (from: number, to: number, tokens: readonly string[], recipient: string) => Promise<TokenTransfer[]>) {
  const asked: unknown[][] = [];
  let closed = 0;
  let head = 10;
  const source: CustodyChainSource = {
    addressForm: (a) => a.toLowerCase(),
    head: async () => head,
    block: async (n) => (n === 8 ? { number: 8, hash: '0xb8' } : null),
    transfersTo: (...args) => (asked.push(args), read(...args)),
    close: () => void closed++,
  };
  const deposits = new MemoryDeposits();
  const address: CustodyAddressState = { tenantId: TENANT, accountId: ACCOUNT, blockchain: 'ETH', address: ADDRESS, createdAt: '', lastDepositAt: null };
  const deps: Pick<CustodyPorts, 'accounts' | 'addresses' | 'deposits' | 'chains' | 'clock'> = {
    accounts: { get: async () => ({ tenantId: TENANT, accountId: ACCOUNT }) as CustodyAccountState, create: async (a) => a, list: async () => [] },
    addresses: {
      get: async () => address,
      create: async (a) => ({ address: a, created: true }),
      list: async () => [address],
      watched: async () => [],
      moveCursor: async () => true,
    },
    deposits,
    chains: {
      sourceFor: (network) => (network === 'ETH' ? source : null),
      tokenOf: (currency) => (currency === 'USDTERC20' ? TOKEN : null),
      confirmationsFor: () => 5,
      lookbackBlocks: 4,
      solana: null,
    },
    clock: new VirtualClock(),
  };
  return { deps, deposits, asked, closed: () => closed, mine: (n: number) => void (head += n) };
}

it("records the address's new transfers (in the source's address form, nonzero), credits at the confirmations, and closes the chain", async () => {
  const t = setup(async () => [transfer('0x00000000000000000000000000000000000000aa', 7_000_000n, 0), transfer('0xother', 1n, 1), transfer(ADDRESS, 0n, 2)]);
  const first = await syncAccount(TENANT, ACCOUNT, t.deps);
  expect(first.message).toBe('1 address read on chain: 1 new deposit found, 0 deposits credited.');
  // The last `lookbackBlocks` blocks up to the head, the token in the source's form, the address as stored.
  expect(t.asked).toEqual([[7, 10, [TOKEN.toLowerCase()], ADDRESS]]);
  expect([...t.deposits.states.values()].map((d) => [d.depositId, d.status, d.amount, d.confirmations])).toEqual([['ETH:0xh:0', 'confirming', '7', 3]]);
  expect(t.closed()).toBe(1);

  t.mine(2);
  const second = await syncAccount(TENANT, ACCOUNT, t.deps);
  expect(second.message).toBe('1 address read on chain: 0 new deposits found, 1 deposit credited.');
  expect(t.deposits.states.get('ETH:0xh:0')).toMatchObject({ status: 'credited', confirmations: 5 });
  expect(t.closed()).toBe(2);
});

it('answers custody_provider_error with nothing recorded when the chain cannot be read, and still closes it', async () => {
  const t = setup(async () => {
    throw new Error('node down');
  });
  await expect(syncAccount(TENANT, ACCOUNT, t.deps)).rejects.toMatchObject({ code: 'custody_provider_error' });
  expect([t.deposits.states.size, t.closed()]).toEqual([0, 1]);
});
