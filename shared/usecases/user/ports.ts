import type { ApiUsage } from '../../domain/tenant.js';

/** What the profile needs: the tenant's API usage and its webhook settings (variant A). */
export interface UsageReader {
  read(tenantId: string, now: Date): Promise<ApiUsage>;
}

export interface WebhookProfile {
  readonly url: string | null;
  /** The visible part of the secret. */
  readonly secret: string | null;
}

export interface UserPorts {
  readonly usage: UsageReader;
  readonly webhookProfile: (tenantId: string) => Promise<WebhookProfile>;
}
