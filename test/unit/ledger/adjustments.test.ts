import { InsufficientBalanceError, NotFoundError, ValidationError } from '../../../shared/domain/errors.js';
import { DuplicateEntryError } from '../../../shared/domain/ledger.js';
import type { AdjustmentDeps } from '../../../shared/usecases/ledger/adjustment.js';
import { creditAdjustment } from '../../../shared/usecases/ledger/credit-adjustment.js';
import { debitAdjustment } from '../../../shared/usecases/ledger/debit-adjustment.js';
import { VirtualClock } from '../../support/clock.js';
import { InMemoryLedger } from '../../support/fakes/ledger.js';
import { aTenant, InMemoryTenants } from '../../support/fakes/tenants.js';
import { JsonNumber } from '../../../shared/domain/json-number.js';

const tenant = aTenant();

const deps = (): AdjustmentDeps & { ledger: InMemoryLedger } => ({
  ledger: new InMemoryLedger(),
  tenants: new InMemoryTenants([tenant]),
  clock: new VirtualClock(new Date('2030-01-02T00:00:00Z')),
});

describe('operator balance credit / debit', () => {
  it('credits and debits with a reason, journalled as adjustments', async () => {
    const d = deps();
    const credit = await creditAdjustment(
      { tenant_id: 't1', currency: 'USDTTRC20', amount: new JsonNumber('10.50'), reason: 'manual top-up', operator: 'alice' },
      d,
    );
    expect(credit).toMatchObject({ direction: 'credit', amount: '10.5', balance: { amount: '10.5', total: '10.5' }, created_at: '2030-01-02T00:00:00.000Z' });
    const debit = await debitAdjustment({ tenant_id: 't1', currency: 'USDTTRC20', amount: '0.5', reason: 'chargeback' }, d);
    expect(debit.balance.amount).toBe('10');
    expect(d.ledger.entries.map((e) => [e.type, e.reason, e.metadata.direction])).toEqual([
      ['adjustment', 'manual top-up', 'credit'],
      ['adjustment', 'chargeback', 'debit'],
    ]);
  });

  it('refuses overdrafts, unknown tenants, missing reasons and bad amounts', async () => {
    const d = deps();
    await expect(debitAdjustment({ tenant_id: 't1', currency: 'ETH', amount: '1', reason: 'oops' }, d)).rejects.toBeInstanceOf(InsufficientBalanceError);
    await expect(creditAdjustment({ tenant_id: 'nobody', currency: 'ETH', amount: '1', reason: 'test' }, d)).rejects.toBeInstanceOf(NotFoundError);
    await expect(creditAdjustment({ tenant_id: 't1', currency: 'ETH', amount: '1', reason: '' }, d)).rejects.toBeInstanceOf(ValidationError);
    await expect(creditAdjustment({ tenant_id: 't1', currency: 'USDTTRC20', amount: '0.0000001', reason: 'dust' }, d)).rejects.toBeInstanceOf(ValidationError);
    await expect(creditAdjustment({ tenant_id: 't1', currency: 'ETH', amount: '0', reason: 'zero' }, d)).rejects.toBeInstanceOf(ValidationError);
    await expect(creditAdjustment({ tenant_id: 't1', currency: 'DOGE', amount: '1', reason: 'coin' }, d)).rejects.toBeInstanceOf(ValidationError);
    expect(d.ledger.entries).toHaveLength(0);
  });

  it('posts an adjustment id once', async () => {
    const d = deps();
    await creditAdjustment({ tenant_id: 't1', currency: 'ETH', amount: '1', reason: 'once', adjustment_id: 'ticket-42' }, d);
    await expect(creditAdjustment({ tenant_id: 't1', currency: 'ETH', amount: '1', reason: 'once', adjustment_id: 'ticket-42' }, d)).rejects.toBeInstanceOf(
      DuplicateEntryError,
    );
    expect((await d.ledger.balance('t1', 'main', 'ETH')).amount).toBe('1');
  });
});
