/** `migrate payments`: rewrites stored payments in the current form (safe while the gateway serves; rerunnable). */
import { upgradeRuntime } from '../../shared/runtime/upgrade.js';
import { upgradeStoredPayments } from '../../shared/usecases/payments/upgrade-stored.js';
import { json, str } from './command.js';
import type { CommandGroup } from './command.js';

export const migrateCommands: CommandGroup = {
  payments: {
    usage: 'migrate payments [--tenant TENANT_ID] [--json]',
    summary: 'Rewrite payments stored before list entries existed (every tenant, or one) in the current form.',
    options: { tenant: str, json },
    run: (v) => upgradeStoredPayments(typeof v.tenant === 'string' ? v.tenant : null, upgradeRuntime()),
    text: (r) => {
      const rows = r as { tenant_id: string; upgraded: number }[];
      const total = rows.reduce((n, row) => n + row.upgraded, 0);
      return [...rows.filter((row) => row.upgraded > 0).map((row) => `${row.tenant_id}  ${row.upgraded}`), `${total} payment(s) rewritten`].join('\n');
    },
  },
};
