import { parseConfig } from '../../../shared/config/config.js';
import { custodyRuntime } from '../../../shared/runtime/custody.js';
import { custodyAccountsRuntime } from '../../../shared/runtime/custody-accounts.js';
import { custodySyncRuntime } from '../../../shared/runtime/custody-sync.js';
import { custodyWithdrawalsRuntime } from '../../../shared/runtime/custody-withdrawals.js';
import { dynamoLedger } from '../../../shared/store/ledger.js';

/**
 * custodyRuntime (the CLI's, the local dev scripts'): the three custody Lambdas' wiring together, so that what one
 * process serving the whole group does is what the deployed Lambdas do.
 */
const cfg = parseConfig({ TABLE_NAME: 't', STAGE: 'local' });

describe('custodyRuntime', () => {
  const all = custodyRuntime(cfg);

  it("holds every port of the custody, custody-sync and custody-withdrawals Lambdas' runtimes", () => {
    const ports = new Set([
      ...Object.keys(custodyAccountsRuntime(cfg)),
      ...Object.keys(custodySyncRuntime(cfg)),
      ...Object.keys(custodyWithdrawalsRuntime(cfg)),
    ]);
    expect(Object.keys(all).sort()).toEqual([...ports].sort());
  });

  it('serves the same stores as the Lambdas, and the one ledger both the balances and the withdrawals read', () => {
    const accounts = custodyAccountsRuntime(cfg);
    const sync = custodySyncRuntime(cfg);
    const withdrawals = custodyWithdrawalsRuntime(cfg);
    expect(all.accounts).toBe(accounts.accounts);
    expect(all.addresses).toBe(accounts.addresses);
    expect(all.transfers).toBe(accounts.transfers);
    expect(all.deposits).toBe(sync.deposits);
    expect(all.withdrawals).toBe(withdrawals.withdrawals);
    expect(all.policies).toBe(withdrawals.policies);
    expect(all.settings).toEqual(withdrawals.settings);
    expect(all.ledger).toBe(dynamoLedger);
  });

  it("answers with the custody Lambda's built-in provider: SOL unsupported without Solana, a chain without a factory refused", async () => {
    const provider = Object.values(all.providers)[0];
    expect(Object.keys(all.providers)).toEqual(Object.keys(custodyAccountsRuntime(cfg).providers));
    for (const chain of ['SOL', 'ETH', 'BSC', 'TRX'] as const) {
      await expect(provider?.depositAddress('t1', 'a1', chain)).rejects.toMatchObject({ code: 'unsupported_blockchain' });
    }
  });
});
