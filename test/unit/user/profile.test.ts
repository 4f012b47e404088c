import type { ApiUsage } from '../../../shared/domain/tenant.js';
import { getProfile, maskSecret } from '../../../shared/usecases/user/get-profile.js';
import type { UserPorts } from '../../../shared/usecases/user/ports.js';
import { aTenant } from '../../support/fakes/tenants.js';

const tenant = aTenant({
  id: '3f1c2a52-5b7e-4a55-9d43-0d2c8f1e9a10',
  schema_name: 'acme_3f1c2a52',
  created_at: '2030-01-02T03:04:05.000Z',
  contact_email: 'ops@acme.test',
  settings: { ...aTenant().settings, ip_whitelist: ['10.0.0.1'], is_ip_whitelist_enabled: true },
});

describe('GET /user/me/ (use case)', () => {
  it('is the tenant record with its usage and the visible part of the webhook secret', async () => {
    const usage: ApiUsage = { requests_today: 3, requests_this_month: 40, last_request: '2030-05-01T09:59:00.000Z' };
    const asked: [string, string][] = [];
    const deps: UserPorts = {
      usage: {
        read: async (tenantId, now) => {
          asked.push([tenantId, now.toISOString()]);
          return usage;
        },
      },
      webhookProfile: async () => ({ url: 'https://acme.test/hooks', secret: 'whsec_abcdefghijklmnop' }),
    };
    const profile = await getProfile({ tenant, now: new Date('2030-05-01T10:00:00Z') }, deps);
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
    const deps: UserPorts = {
      usage: { read: async () => ({ requests_today: 0, requests_this_month: 0, last_request: null }) },
      webhookProfile: async () => ({ url: null, secret: null }),
    };
    const profile = await getProfile({ tenant, now: new Date() }, deps);
    expect([profile.webhook_callback_url, profile.webhook_secret]).toEqual([null, null]);
    expect(maskSecret(null)).toBeNull();
  });
});
