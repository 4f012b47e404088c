import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { InsufficientBalanceError, ValidationError } from '../../../shared/domain/errors.js';
import {
  creditEntry,
  debitEntry,
  DuplicateEntryError,
  EXTERNAL,
  FEES,
  holdEntry,
  linesOf,
  MAIN,
  pocket,
  releaseEntry,
  transferEntry,
} from '../../../shared/domain/ledger.js';
import { InMemoryLedger } from '../../support/fakes/ledger.js';
import { checkAgainstModel, opArb, runScenario } from './scenario.js';

describe('ledger rules', () => {
  it('turns legs into net lines that sum to zero', () => {
    const lines = linesOf({
      type: 'payment',
      currency: 'USDTTRC20',
      legs: [
        { from: pocket(EXTERNAL), to: pocket(MAIN), amount: '99' },
        { from: pocket(EXTERNAL), to: pocket(FEES), amount: '1' },
      ],
    });
    expect(lines).toEqual([
      { account: 'main', field: 'amount', delta: '99' },
      { account: 'platform:external', field: 'amount', delta: '-100' },
      { account: 'platform:fees', field: 'amount', delta: '1' },
    ]);
  });

  it('refuses malformed drafts', () => {
    const bad =
      (legs: Parameters<typeof linesOf>[0]['legs'], extra = {}) =>
      () =>
        linesOf({ type: 'transfer', currency: 'USDTTRC20', legs, ...extra });
    expect(bad([])).toThrow(ValidationError);
    expect(bad([{ from: pocket(MAIN), to: pocket(MAIN), amount: '1' }])).toThrow(ValidationError);
    expect(bad([{ from: pocket(MAIN), to: pocket('wallet:a'), amount: '0' }])).toThrow(ValidationError);
    expect(bad([{ from: pocket(MAIN), to: pocket('wallet:a'), amount: '-1' }])).toThrow(ValidationError);
    expect(bad([{ from: pocket(MAIN), to: pocket('wallet:a'), amount: '0.0000001' }])).toThrow(/more than 6 decimal places/);
    expect(bad([{ from: pocket(MAIN), to: pocket(FEES, 'locked'), amount: '1' }])).toThrow(ValidationError);
    expect(() => linesOf({ type: 'adjustment', currency: 'USDTTRC20', legs: [{ from: pocket(EXTERNAL), to: pocket(MAIN), amount: '1' }] })).toThrow(
      ValidationError,
    );
  });

  it('applies holds, releases and transfers, and refuses overdrafts atomically', async () => {
    const ledger = new InMemoryLedger();
    const t = randomUUID();
    await ledger.post({ tenantId: t, entry: creditEntry({ account: MAIN, currency: 'USDTTRC20', amount: '10', type: 'adjustment', reason: 'seed' }) });
    await ledger.post({ tenantId: t, entry: holdEntry({ account: MAIN, currency: 'USDTTRC20', amount: '4' }) });
    await expect(
      ledger.post({ tenantId: t, entry: debitEntry({ account: MAIN, currency: 'USDTTRC20', amount: '6.000001', type: 'withdrawal' }) }),
    ).rejects.toBeInstanceOf(InsufficientBalanceError);
    await ledger.post({ tenantId: t, entry: transferEntry({ from: MAIN, to: 'wallet:w', currency: 'USDTTRC20', amount: '6' }) });
    await ledger.post({ tenantId: t, entry: releaseEntry({ account: MAIN, currency: 'USDTTRC20', amount: '4' }) });
    expect(await ledger.balance(t, MAIN, 'USDTTRC20')).toEqual({ amount: '4', pending: '0', locked: '0' });
    expect(await ledger.balance(t, 'wallet:w', 'USDTTRC20')).toEqual({ amount: '6', pending: '0', locked: '0' });
    await expect(ledger.post({ tenantId: t, entryId: 'x', entry: holdEntry({ account: MAIN, currency: 'USDTTRC20', amount: '1' }) })).resolves.toBeDefined();
    await expect(ledger.post({ tenantId: t, entryId: 'x', entry: holdEntry({ account: MAIN, currency: 'USDTTRC20', amount: '1' }) })).rejects.toBeInstanceOf(
      DuplicateEntryError,
    );
  });

  it('property: random operations never overdraw and the journal sums to the balances (in memory)', async () => {
    let applied = 0;
    let refused = 0;
    const walletSteps = { 'wallet_transfer:accept': 0, 'wallet_transfer:complete': 0, 'wallet_transfer:fail': 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 60, size: 'max' }), async (ops) => {
        const ledger = new InMemoryLedger();
        const tenantId = randomUUID();
        const { model, result } = await runScenario(ledger, tenantId, ops);
        await checkAgainstModel(ledger, tenantId, model, ledger.entries);
        applied += result.applied;
        refused += result.refused;
        for (const step of Object.keys(walletSteps) as (keyof typeof walletSteps)[]) walletSteps[step] += result.appliedByKind[step] ?? 0;
      }),
      { numRuns: 300 },
    );
    // Wallet transfers are held, completed and failed (hold returned) among the other movements.
    for (const count of Object.values(walletSteps)) expect(count).toBeGreaterThan(0);
    // The sequences exercise both sides of the rule.
    expect(applied).toBeGreaterThan(1000);
    expect(refused).toBeGreaterThan(100);
  });
});
