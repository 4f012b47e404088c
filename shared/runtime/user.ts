import { dynamoLedger } from '../store/ledger.js';
import { dynamoTenants } from '../store/tenants.js';
import { dynamoUsage } from '../store/usage.js';
import { dynamoWallets } from '../store/wallets.js';
import type { BalancesPorts } from '../usecases/balances/ports.js';
import type { UserPorts } from '../usecases/user/ports.js';
import { dynamoTenantStatistics } from '../store/statistics.js';
import { dynamoWebhookSettings } from '../store/webhooks/settings.js';
import { dynamoWebhookSubscriptions } from '../store/webhooks/subscriptions.js';
import { getWebhookProfile } from '../usecases/webhooks/get-settings.js';

export type UserGroupPorts = UserPorts & BalancesPorts;

/**
 * The user group's profile and balance routes: usage counters, the ledger, the webhook settings shown in
 * the profile, and the wallets (sub-accounts of the balances; `features.multi_wallet`). The group's webhook routes bring their own ports (spread beside these in functions/user/handler.ts).
 */
export function userRuntime(): UserGroupPorts {
  return {
    usage: dynamoUsage,
    webhookProfile: (tenantId) => getWebhookProfile(tenantId, { webhookSettings: dynamoWebhookSettings, webhookSubscriptions: dynamoWebhookSubscriptions }),
    statistics: dynamoTenantStatistics,
    ledger: dynamoLedger,
    wallets: async (tenantId) => (await dynamoWallets.all(tenantId)).map((w) => ({ walletId: w.walletId, name: w.name })),
    tenants: dynamoTenants,
  };
}
