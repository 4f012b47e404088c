import { parseConfig, platformLimits } from '../../../shared/config/config.js';
import { creditEntry, holdEntry, MAIN } from '../../../shared/domain/ledger.js';
import type { ApiUsage, Tenant } from '../../../shared/domain/tenant.js';
import { effectiveLimits, patchSettings, withPlatformLimits } from '../../../shared/domain/tenant.js';
import { getProfile, maskSecret } from '../../../shared/usecases/user/get-profile.js';
import type { UserPorts, WebhookProfile } from '../../../shared/usecases/user/ports.js';
import { InMemoryLedger } from '../../support/fakes/ledger.js';
import { aTenant } from '../../support/fakes/tenants.js';

const tenant = aTenant({
  id: '3f1c2a52-5b7e-4a55-9d43-0d2c8f1e9a10',
  schema_name: 'acme_3f1c2a52',
  created_at: '2030-01-02T03:04:05.000Z',
  contact_email: 'ops@acme.test',
  settings: { ...aTenant().settings, ip_whitelist: ['10.0.0.1'], is_ip_whitelist_enabled: true },
});
const now = new Date('2030-05-01T10:00:00Z');
const noUsage = { read: async () => ({ requests_today: 0, requests_this_month: 0, last_request: null }) };
const noWebhook = async (): Promise<WebhookProfile> => ({ url: null, secret: null, subscriptions: 0 });
const noTotals = { read: async () => ({ payments: 0, withdrawals: 0, volumeUsd: '0' }) };

function ports(overrides: Partial<UserPorts> = {}): UserPorts {
  const tenants = { updateSettings: async () => null };
  return { usage: noUsage, webhookProfile: noWebhook, statistics: noTotals, ledger: new InMemoryLedger(), tenants, ...overrides };
}

describe('GET /user/me/ (use case)', () => {
  it('is the tenant record with its usage and the visible part of the webhook secret', async () => {
    const usage: ApiUsage = { requests_today: 3, requests_this_month: 40, last_request: '2030-05-01T09:59:00.000Z' };
    const asked: [string, string][] = [];
    const deps = ports({
      usage: {
        read: async (tenantId, at) => {
          asked.push([tenantId, at.toISOString()]);
          return usage;
        },
      },
      webhookProfile: async () => ({ url: 'https://acme.test/hooks', secret: 'whsec_abcdefghijklmnop', subscriptions: 0 }),
    });
    const profile = await getProfile({ tenant, now }, deps);
    expect(asked).toEqual([[tenant.id, '2030-05-01T10:00:00.000Z']]);
    expect(profile).toMatchObject({
      id: tenant.id,
      name: 'Acme',
      created_on: '2030-01-02',
      contact_email: 'ops@acme.test',
      transaction_fee: tenant.settings.transaction_fee,
      webhook_callback_url: 'https://acme.test/hooks',
      webhook_secret: 'whsec_abcdef********',
      is_ip_whitelist_enabled: true,
      ip_whitelist: ['10.0.0.1'],
      api_usage: usage,
      limits: tenant.settings.limits,
    });
  });

  it('shows no webhook when none is set', async () => {
    const profile = await getProfile({ tenant, now }, ports());
    expect([profile.webhook_callback_url, profile.webhook_secret]).toEqual([null, null]);
    expect(maskSecret(null)).toBeNull();
  });

  it('counts what the tenant did and holds', async () => {
    const ledger = new InMemoryLedger();
    const post = (entry: Parameters<InMemoryLedger['post']>[0]['entry']) => ledger.post({ tenantId: tenant.id, entry, now });
    await post(creditEntry({ account: MAIN, currency: 'USDTTRC20', amount: '10', type: 'adjustment', reason: 'x' }));
    await post(creditEntry({ account: MAIN, currency: 'ETH', amount: '1', type: 'adjustment', reason: 'x' }));
    await post(holdEntry({ account: MAIN, currency: 'ETH', amount: '1' }));
    await post(creditEntry({ account: MAIN, currency: 'BTC', amount: '1', type: 'adjustment', reason: 'x', field: 'pending' }));
    const profile = await getProfile(
      { tenant, now },
      ports({ ledger, statistics: { read: async (id) => ({ payments: id === tenant.id ? 7 : 0, withdrawals: 2, volumeUsd: '1234.5678' }) } }),
    );
    // ETH is all held, BTC all pending: both are still currencies the tenant is active in.
    expect(profile.statistics).toEqual({ total_payments: 7, total_withdrawals: 2, total_volume_usd: '1234.56', active_currencies: 3 });
  });

  it('reports the features the tenant really has', async () => {
    const plain = await getProfile({ tenant, now }, ports());
    expect(plain.features).toEqual({ multi_wallet: false, instant_withdrawals: false, custom_fees: false, webhook_retry: false });

    const custom: Tenant = { ...tenant, settings: patchSettings(tenant.settings, { transaction_fee: '0.5' }) };
    const rich = await getProfile(
      { tenant: custom, now },
      ports({ webhookProfile: async () => ({ url: null, secret: null, subscriptions: 1 }), wallets: async () => [] }),
    );
    expect(rich.features).toEqual({ multi_wallet: true, instant_withdrawals: false, custom_fees: true, webhook_retry: true });
    // The same fee written differently is not custom; the customer paying the fee is.
    expect(
      (await getProfile({ tenant: { ...tenant, settings: patchSettings(tenant.settings, { transaction_fee: '1.00' }) }, now }, ports())).features.custom_fees,
    ).toBe(false);
    expect(
      (await getProfile({ tenant: { ...tenant, settings: patchSettings(tenant.settings, { is_fee_paid_by_user: true }) }, now }, ports())).features.custom_fees,
    ).toBe(true);
  });
});

describe('tenant limits', () => {
  const platform = platformLimits(parseConfig({ TABLE_NAME: 't' }));

  it('are the platform defaults from configuration, as strings, where the tenant has none of its own', () => {
    expect(platform).toEqual({
      max_payment_amount: '100000.00',
      daily_payment_limit: '1000000.00',
      max_withdrawal_amount: '100000.00',
      daily_withdrawal_limit: '1000000.00',
    });
    const configured = platformLimits(parseConfig({ TABLE_NAME: 't', DEFAULT_MAX_PAYMENT_AMOUNT: '2500', DEFAULT_DAILY_WITHDRAWAL_LIMIT: 'none' }));
    expect([configured.max_payment_amount, configured.daily_withdrawal_limit]).toEqual(['2500', null]);
    expect(() => parseConfig({ TABLE_NAME: 't', DEFAULT_MAX_PAYMENT_AMOUNT: '1e6' })).toThrow(/DEFAULT_MAX_PAYMENT_AMOUNT/);

    const own = patchSettings(tenant.settings, { limits: { max_payment_amount: '500' } });
    expect(effectiveLimits(own.limits, platform)).toEqual({ ...platform, max_payment_amount: '500' });
    expect(withPlatformLimits({ ...tenant, settings: own }, platform).settings.limits).toEqual({ ...platform, max_payment_amount: '500' });
  });

  it('change one at a time: a patch of one limit keeps the others', () => {
    const first = patchSettings(tenant.settings, { limits: { max_payment_amount: '500', daily_withdrawal_limit: '900' } });
    const second = patchSettings(first, { limits: { max_payment_amount: null } });
    expect(second.limits).toEqual({ max_payment_amount: null, daily_payment_limit: null, max_withdrawal_amount: null, daily_withdrawal_limit: '900' });
  });
});
