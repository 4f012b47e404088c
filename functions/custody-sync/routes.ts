import * as z from 'zod';
import { lazySchema } from '../../shared/domain/lazy-schema.js';
import { READ_WRITE } from '../../shared/domain/scopes.js';
import type { ErrorOverrides } from '../../shared/http/route.js';
import { ok, principalOf, routesOf } from '../../shared/http/route.js';
import type { CustodySyncPorts } from '../../shared/runtime/custody-sync.js';
import { CustodySyncRecord, syncAccount } from '../../shared/usecases/custody/sync.js';

/**
 * The custody-sync Lambda's one route: an account's addresses re-read on their chains, apart from the custody Lambda
 * so that the chain clients are bundled only here. Part of the custody group (functions/custody/routes.ts has the rest).
 */
const tags = ['Custody'];
const route = routesOf<CustodySyncPorts>();
/** As in the rest of the custody group: a missing scope is `insufficient_permissions` (section 4.8). */
const custody: ErrorOverrides = { permission_denied: { code: 'insufficient_permissions' } };
const Account = lazySchema(() => z.object({ accountId: z.string().max(100) }));
const notFound = { description: "account_not_found: unknown, or another tenant's" };

export const custodySyncRoutes = [
  route({
    method: 'POST',
    path: '/custody/accounts/{accountId}/sync',
    auth: 'bearer-or-api-key',
    scopes: READ_WRITE,
    errorOverrides: custody,
    params: Account,
    doc: {
      summary: "Re-read the account's addresses on chain now",
      description:
        'Reads every address of the account on its chain (ETH and BSC: the USDT Transfer logs to it over the last CUSTODY_SYNC_LOOKBACK_BLOCKS blocks; TRX: its TRC-20 transfers over as long; SOL: its token account history), records any deposit not seen yet and credits the confirmed ones (SOL: finalized), never twice. Deposits still short of confirmations are credited later by the scanners.',
      tags,
      responses: {
        200: { description: 'What the sync found', schema: CustodySyncRecord },
        404: notFound,
        500: { description: 'custody_provider_error: a chain could not be read (nothing recorded)' },
      },
    },
    handle: async (req, deps) => ok(await syncAccount(principalOf(req).tenant.id, req.params.accountId, deps)),
  }),
];
