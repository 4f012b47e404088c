import fc from 'fast-check';
import type { CurrencyCode } from '../../../shared/domain/currencies.js';
import { CURRENCIES } from '../../../shared/domain/currencies.js';
import { DuplicateEntryError } from '../../../shared/domain/ledger.js';
import { InsufficientBalanceError } from '../../../shared/domain/errors.js';
import type { AccountId, BalanceField, CustomerAccount, EntryDraft, JournalEntry, Leg } from '../../../shared/domain/ledger.js';
import { EXTERNAL, FEES, pocket } from '../../../shared/domain/ledger.js';
import { fromBaseUnits, toBaseUnits } from '../../../shared/domain/money.js';
import type { TransferType } from '../../../shared/domain/wallets.js';
import { acceptTransfer, settleTransfer, TRANSFER_TYPES } from '../../../shared/domain/wallets.js';
import type { LedgerPort } from '../../../shared/usecases/ledger/ports.js';

/**
 * Random sequences of ledger operations, run against any LedgerPort and checked against an independent
 * model in bigint base units: each operation succeeds exactly when the model says no customer pocket goes
 * negative, no balance ever goes negative, and the journal's lines sum to the balances.
 */

/** The wallet of the scenario's `wallet:` account. */
export const SCENARIO_WALLET = 'w1';
export const ACCOUNTS: readonly CustomerAccount[] = ['main', `wallet:${SCENARIO_WALLET}`, 'custody:c1'];
export const SCENARIO_CURRENCIES: readonly CurrencyCode[] = ['USDTTRC20', 'DAIERC20'];

export type Op =
  | { kind: 'credit' | 'debit' | 'hold' | 'release' | 'pending' | 'confirm' | 'fee'; account: CustomerAccount; currency: CurrencyCode; units: bigint }
  | { kind: 'transfer'; account: CustomerAccount; to: CustomerAccount; currency: CurrencyCode; units: bigint }
  /** A wallet transfer's entries as shared/domain/wallets.ts builds them: the hold at acceptance, then its settlement. */
  | { kind: 'wallet_transfer'; step: 'accept' | 'complete' | 'fail'; direction: TransferType; currency: CurrencyCode; units: bigint };

const account = fc.constantFrom(...ACCOUNTS);
const currency = fc.constantFrom(...SCENARIO_CURRENCIES);
// Small amounts so that refusals and successes both happen often; scaled to each currency's decimals.
const units = fc.bigInt({ min: 1n, max: 50n });

export const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constantFrom('credit', 'debit', 'hold', 'release', 'pending', 'confirm', 'fee' as const), account, currency, units }),
  fc.record({ kind: fc.constant('transfer' as const), account, to: account, currency, units }).filter((o) => o.account !== o.to),
  fc.record({
    kind: fc.constant('wallet_transfer' as const),
    step: fc.constantFrom('accept', 'complete', 'fail' as const),
    direction: fc.constantFrom(...TRANSFER_TYPES),
    currency,
    units,
  }),
) as fc.Arbitrary<Op>;

/** Amount of an op: units of 0.1 with every digit the currency allows (exercises 18 places on DAI). */
export function amountOf(op: Op): string {
  const { decimals } = CURRENCIES[op.currency];
  return fromBaseUnits(op.units * 10n ** BigInt(decimals - 1) + (decimals > 6 ? 1n : 0n), decimals);
}

function walletTransferDraft(op: Extract<Op, { kind: 'wallet_transfer' }>): EntryDraft {
  const at = new Date('2026-01-01T00:00:00Z');
  const accepted = acceptTransfer(
    { id: 'scenario', tenantId: 'scenario', type: op.direction, walletId: SCENARIO_WALLET, currency: op.currency, amount: amountOf(op), callbackUrl: null },
    at,
  );
  if (op.step === 'accept') return accepted.entry.entry;
  return settleTransfer(accepted.state, op.step === 'complete' ? { ok: true } : { ok: false, reason: 'scenario' }, at).entry.entry;
}

export function draftOf(op: Op): EntryDraft {
  if (op.kind === 'wallet_transfer') return walletTransferDraft(op);
  const amount = amountOf(op);
  const leg = (from: AccountId, fromField: BalanceField, to: AccountId, toField: BalanceField): Leg => ({
    from: pocket(from, fromField),
    to: pocket(to, toField),
    amount,
  });
  const legs: Record<Exclude<Op['kind'], 'wallet_transfer'>, () => Leg[]> = {
    credit: () => [leg(EXTERNAL, 'amount', op.account, 'amount')],
    debit: () => [leg(op.account, 'amount', EXTERNAL, 'amount')],
    hold: () => [leg(op.account, 'amount', op.account, 'locked')],
    release: () => [leg(op.account, 'locked', op.account, 'amount')],
    pending: () => [leg(EXTERNAL, 'amount', op.account, 'pending')],
    confirm: () => [leg(op.account, 'pending', op.account, 'amount')],
    fee: () => [leg(op.account, 'amount', FEES, 'amount')],
    transfer: () => [leg(op.account, 'amount', op.kind === 'transfer' ? op.to : op.account, 'amount')],
  };
  const type = op.kind === 'fee' ? 'fee' : op.kind === 'transfer' ? 'transfer' : op.kind === 'pending' ? 'deposit' : 'adjustment';
  return { type, currency: op.currency, legs: legs[op.kind](), reason: `scenario ${op.kind}` };
}

type ModelKey = `${string}|${string}|${BalanceField}`;

/** The independent model: bigint base units per (account, currency, pocket). */
export class Model {
  readonly values = new Map<ModelKey, bigint>();

  get(account: string, currency: string, field: BalanceField): bigint {
    return this.values.get(`${account}|${currency}|${field}`) ?? 0n;
  }

  /** Applies the op if no customer pocket goes negative; returns whether it applied. */
  apply(op: Op): boolean {
    const draft = draftOf(op);
    const { decimals } = CURRENCIES[op.currency];
    const next = new Map(this.values);
    for (const leg of draft.legs) {
      const u = toBaseUnits(leg.amount, decimals);
      const fromKey = `${leg.from.account}|${op.currency}|${leg.from.field}` as ModelKey;
      const toKey = `${leg.to.account}|${op.currency}|${leg.to.field}` as ModelKey;
      next.set(fromKey, (next.get(fromKey) ?? 0n) - u);
      next.set(toKey, (next.get(toKey) ?? 0n) + u);
    }
    for (const [key, value] of next) {
      const [acc] = key.split('|');
      if (value < 0n && acc !== EXTERNAL && acc !== FEES) return false;
    }
    this.values.clear();
    for (const [k, v] of next) this.values.set(k, v);
    return true;
  }
}

export interface ScenarioResult {
  readonly applied: number;
  readonly refused: number;
  /** Applied ops per kind (wallet transfers per step: `wallet_transfer:complete`). */
  readonly appliedByKind: Readonly<Record<string, number>>;
}

/** Runs ops one after another against the ledger and the model; throws on any disagreement. */
export async function runScenario(ledger: LedgerPort, tenantId: string, ops: readonly Op[]): Promise<{ model: Model; result: ScenarioResult }> {
  const model = new Model();
  let applied = 0;
  let refused = 0;
  const appliedByKind: Record<string, number> = {};
  for (const op of ops) {
    const expected = model.apply(op);
    let ok: boolean;
    try {
      await ledger.post({ tenantId, entry: draftOf(op) });
      ok = true;
    } catch (error) {
      if (!(error instanceof InsufficientBalanceError)) throw error;
      ok = false;
    }
    if (ok !== expected)
      throw new Error(
        `ledger ${ok ? 'applied' : 'refused'} ${JSON.stringify(op, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))} but the model says otherwise`,
      );
    if (ok) {
      applied++;
      const kind = op.kind === 'wallet_transfer' ? `${op.kind}:${op.step}` : op.kind;
      appliedByKind[kind] = (appliedByKind[kind] ?? 0) + 1;
    } else refused++;
  }
  return { model, result: { applied, refused, appliedByKind } };
}

/** Balances equal the model, no customer pocket is negative, and the journal sums to the balances. */
export async function checkAgainstModel(ledger: LedgerPort, tenantId: string, model: Model, journal: readonly JournalEntry[]): Promise<void> {
  const journalSums = new Map<string, bigint>();
  for (const entry of journal) {
    const { decimals } = CURRENCIES[entry.currency];
    for (const line of entry.lines) {
      const key = `${line.account}|${entry.currency}|${line.field}`;
      const negative = line.delta.startsWith('-');
      const u = toBaseUnits(negative ? line.delta.slice(1) : line.delta, decimals);
      journalSums.set(key, (journalSums.get(key) ?? 0n) + (negative ? -u : u));
    }
    // Every entry balances.
  }
  for (const acc of ACCOUNTS) {
    for (const cur of SCENARIO_CURRENCIES) {
      const { decimals } = CURRENCIES[cur];
      const balance = await ledger.balance(tenantId, acc, cur);
      for (const field of ['amount', 'pending', 'locked'] as const) {
        const stored = toBaseUnits(balance[field].replace(/^-/, ''), decimals) * (balance[field].startsWith('-') ? -1n : 1n);
        if (stored < 0n) throw new Error(`${acc} ${cur} ${field} is negative: ${balance[field]}`);
        if (stored !== model.get(acc, cur, field))
          throw new Error(`${acc} ${cur} ${field}: ledger ${balance[field]}, model ${model.get(acc, cur, field)} units`);
        if (stored !== (journalSums.get(`${acc}|${cur}|${field}`) ?? 0n)) throw new Error(`${acc} ${cur} ${field}: journal does not sum to the balance`);
      }
    }
  }
  for (const entry of journal) {
    const { decimals } = CURRENCIES[entry.currency];
    const total = entry.lines.reduce((s, l) => s + (l.delta.startsWith('-') ? -toBaseUnits(l.delta.slice(1), decimals) : toBaseUnits(l.delta, decimals)), 0n);
    if (total !== 0n) throw new Error(`entry ${entry.id} does not balance`);
  }
}

export { DuplicateEntryError };
