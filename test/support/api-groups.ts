import type { Config } from '../../shared/config/config.js';
import { createApi } from '../../shared/http/pipeline.js';
import type { AnyRoute } from '../../shared/http/route.js';
import { authRuntime } from '../../shared/runtime/auth.js';
import { currenciesRuntime } from '../../shared/runtime/currencies.js';
import { custodyAccountsRuntime } from '../../shared/runtime/custody-accounts.js';
import { custodySyncRuntime } from '../../shared/runtime/custody-sync.js';
import { custodyWithdrawalsRuntime } from '../../shared/runtime/custody-withdrawals.js';
import { paymentsRuntime } from '../../shared/runtime/payments.js';
import { refundsRuntime } from '../../shared/runtime/refunds.js';
import { paymentLinksRuntime } from '../../shared/runtime/payment-links.js';
import { subscriptionsRuntime } from '../../shared/runtime/subscriptions.js';
import { systemRuntime } from '../../shared/runtime/system.js';
import { transactionsRuntime } from '../../shared/runtime/transactions.js';
import { userRuntime } from '../../shared/runtime/user.js';
import { walletsRuntime } from '../../shared/runtime/wallets.js';
import { webhooksRuntime } from '../../shared/runtime/webhooks.js';
import { withdrawalsRuntime } from '../../shared/runtime/withdrawals.js';
import { fakeSecretBox, RecordingQueue, ScriptedSender } from './fakes/webhooks.js';
import { API_ROUTE_TABLES } from './route-tables.js';

/**
 * Every API Lambda's pipeline over its routes, keyed by the function's name, with the deps its Lambda builds: the
 * real adapters on the table `cfg` names; webhook I/O (secrets, sending, the delivery queue, name resolution) faked.
 */
export function apiGroupHandlers(cfg: Config): Record<string, ReturnType<typeof createApi>> {
  const webhooks = {
    ...webhooksRuntime(cfg),
    webhookSecrets: fakeSecretBox,
    webhookSender: new ScriptedSender(200).send,
    deliveryQueue: new RecordingQueue(),
    callbacks: { allowLoopback: false, resolve: async () => ['93.184.216.34'] },
  };
  const deps: Record<string, unknown> = {
    auth: authRuntime(cfg),
    user: { ...userRuntime(), ...webhooks },
    system: systemRuntime(),
    currencies: currenciesRuntime(cfg),
    legacy: {},
    payments: paymentsRuntime(cfg),
    refunds: refundsRuntime(cfg),
    'payment-links': paymentLinksRuntime(cfg),
    subscriptions: subscriptionsRuntime(cfg),
    withdrawals: withdrawalsRuntime(cfg),
    wallets: walletsRuntime(cfg),
    transactions: transactionsRuntime(cfg),
    custody: custodyAccountsRuntime(cfg),
    'custody-sync': custodySyncRuntime(cfg),
    'custody-withdrawals': custodyWithdrawalsRuntime(cfg),
    'not-found': {},
  };
  return Object.fromEntries(
    Object.entries(API_ROUTE_TABLES).map(([name, routes]) => {
      if (!(name in deps)) throw new Error(`no deps for the ${name} group`);
      return [name, createApi(routes as readonly AnyRoute[], deps[name])];
    }),
  );
}
