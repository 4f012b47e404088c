/** `migrate payments`: rewrites stored payments in the current form (safe while the gateway serves; rerunnable). */
import { upgradeRuntime } from '../../shared/runtime/upgrade.js';
import { upgradeStoredPayments } from '../../shared/usecases/payments/upgrade-stored.js';
import type { TenantUpgrade } from '../../shared/usecases/payments/upgrade-stored.js';
import { json, str } from './command.js';
import type { CommandGroup } from './command.js';

export const migrateCommands: CommandGroup = {
  payments: {
    usage: 'migrate payments [--tenant TENANT_ID] [--json]',
    summary:
      'Rewrite payments stored before list entries existed (every tenant, or one) in the current form, and carry day totals of payments kept on items of their own onto the usage items that keep them now.',
    options: { tenant: str, json },
    run: (v) => upgradeStoredPayments(typeof v.tenant === 'string' ? v.tenant : null, upgradeRuntime()),
    text: (r) => {
      const rows = r as TenantUpgrade[];
      const sum = (field: 'upgraded' | 'day_totals') => rows.reduce((n, row) => n + row[field], 0);
      return [
        ...rows
          .filter((row) => row.upgraded > 0 || row.day_totals > 0)
          .map((row) => `${row.tenant_id}  ${row.upgraded} payment(s), ${row.day_totals} day total(s)`),
        `${sum('upgraded')} payment(s) rewritten, ${sum('day_totals')} day total(s) carried`,
      ].join('\n');
    },
  },
};
