/**
 * Every key of the single table is spelled here and nowhere else. Keys are readable `TYPE#id` strings.
 * Tenant data starts with the tenant id, so another tenant's id is simply not found.
 *
 * Access patterns (README, "Data model"):
 * | item                | pk                          | sk                         | indexes                              |
 * |---------------------|-----------------------------|----------------------------|--------------------------------------|
 * | tenant              | TENANT#<tid>                | PROFILE                    | gsi1: TENANTS / <created_at>#<tid>   |
 * | OAuth app           | TENANT#<tid>                | APP#<app id>               |                                      |
 * | client credential   | CLIENT#<client id>          | CLIENT                     |                                      |
 * | access token        | TOKEN#<sha256>              | TOKEN                      | gsi1: CLIENT#<client id>#TOKENS      |
 * | API key (lookup)    | APIKEY#<sha256>             | APIKEY                     |                                      |
 * | API key (record)    | TENANT#<tid>                | APIKEY#<key id>            |                                      |
 * | rate window         | TENANT#<tid>                | RATE#<bucket>#<window>     |                                      |
 * | daily API usage     | TENANT#<tid>                | USAGE#<yyyy-mm-dd>         |                                      |
 * | idempotency record  | TENANT#<tid>                | IDEM#<key>                 |                                      |
 * | outbox event        | OUTBOX#<event id>           | OUTBOX                     | stream -> event-router               |
 * | balance row         | TENANT#<tid>                | BAL#<account>#<currency>   | (posting counters live on the row)   |
 * | journal entry       | TENANT#<tid>                | JOURNAL#<entry id>         | gsi1: TENANT#<tid>#JOURNAL / <at>#<id> |
 * | posting (history)   | TENANT#<tid>                | POST#<account>#<cur>#<at>#<entry id> | gsi1: TENANT#<tid>#POST#<account> / <at>#<id> |
 * | platform balance    | PLATFORM#<account>#<cur>#<shard> | BALANCE               | N shards per (account, currency)     |
 * | rates snapshot      | RATES                       | CURRENT                    |                                      |
 * | rates hour candle   | RATES                       | HOUR#<yyyy-mm-ddThh>       | TTL 26 h                             |
 */
import { OUTBOX_KEY_PREFIX } from '../../infra/table.js';

export interface Key {
  readonly pk: string;
  readonly sk: string;
}

const tenantPk = (tenantId: string): string => `TENANT#${tenantId}`;

export const keys = {
  tenant: (tenantId: string): Key => ({ pk: tenantPk(tenantId), sk: 'PROFILE' }),
  /** gsi1 partition listing every tenant, ordered by creation. */
  tenantList: (createdAt: string, tenantId: string) => ({ gsi1pk: 'TENANTS', gsi1sk: `${createdAt}#${tenantId}` }),
  tenantListPartition: 'TENANTS',

  app: (tenantId: string, appId: string): Key => ({ pk: tenantPk(tenantId), sk: `APP#${appId}` }),
  appPrefix: (tenantId: string) => ({ pk: tenantPk(tenantId), skPrefix: 'APP#' }),
  clientCredential: (clientId: string): Key => ({ pk: `CLIENT#${clientId}`, sk: 'CLIENT' }),

  accessToken: (tokenHash: string): Key => ({ pk: `TOKEN#${tokenHash}`, sk: 'TOKEN' }),
  /** gsi1 partition of the tokens a client holds, so deleting an app can revoke them. */
  tokensOfClient: (clientId: string, expiresAt: string, tokenHash: string) => ({
    gsi1pk: `CLIENT#${clientId}#TOKENS`,
    gsi1sk: `${expiresAt}#${tokenHash}`,
  }),
  tokensOfClientPartition: (clientId: string): string => `CLIENT#${clientId}#TOKENS`,

  apiKeyLookup: (keyHash: string): Key => ({ pk: `APIKEY#${keyHash}`, sk: 'APIKEY' }),
  apiKey: (tenantId: string, keyId: string): Key => ({ pk: tenantPk(tenantId), sk: `APIKEY#${keyId}` }),
  apiKeyPrefix: (tenantId: string) => ({ pk: tenantPk(tenantId), skPrefix: 'APIKEY#' }),

  rateWindow: (tenantId: string, bucket: string, windowStart: number): Key => ({
    pk: tenantPk(tenantId),
    sk: `RATE#${bucket}#${windowStart}`,
  }),
  usageDay: (tenantId: string, day: string): Key => ({ pk: tenantPk(tenantId), sk: `USAGE#${day}` }),
  /** Daily usage items of one month (`yyyy-mm`), for a begins_with query. */
  usageMonthPrefix: (tenantId: string, month: string) => ({ pk: tenantPk(tenantId), skPrefix: `USAGE#${month}` }),

  idempotency: (tenantId: string, idempotencyKey: string): Key => ({
    pk: tenantPk(tenantId),
    sk: `IDEM#${idempotencyKey}`,
  }),

  outbox: (eventId: string): Key => ({ pk: `${OUTBOX_KEY_PREFIX}${eventId}`, sk: 'OUTBOX' }),

  /** Ledger: one row per (tenant, account, currency); `account` is `main`, `wallet:<id>`, `custody:<id>`. */
  balance: (tenantId: string, account: string, currency: string): Key => ({
    pk: tenantPk(tenantId),
    sk: `BAL#${account}#${currency}`,
  }),
  /** Balance rows of a tenant (every account), or of one account. */
  balancePrefix: (tenantId: string, account?: string) => ({
    pk: tenantPk(tenantId),
    skPrefix: account === undefined ? 'BAL#' : `BAL#${account}#`,
  }),
  /** Platform accounts (fees, network fees) are the platform's, not a tenant's, and sharded: a random shard per write. */
  platformBalance: (account: string, currency: string, shard: number): Key => ({
    pk: `PLATFORM#${account}#${currency}#${shard}`,
    sk: 'BALANCE',
  }),
  journalEntry: (tenantId: string, entryId: string): Key => ({ pk: tenantPk(tenantId), sk: `JOURNAL#${entryId}` }),
  /** gsi1 partition of every journal entry of a tenant, by time. */
  journalList: (tenantId: string, createdAt: string, entryId: string) => ({
    gsi1pk: `${tenantPk(tenantId)}#JOURNAL`,
    gsi1sk: `${createdAt}#${entryId}`,
  }),
  journalListPartition: (tenantId: string): string => `${tenantPk(tenantId)}#JOURNAL`,
  /** One posting per customer account an entry changes: that account's history, per currency by time. */
  posting: (tenantId: string, account: string, currency: string, createdAt: string, entryId: string): Key => ({
    pk: tenantPk(tenantId),
    sk: `POST#${account}#${currency}#${createdAt}#${entryId}`,
  }),
  postingPrefix: (tenantId: string, account: string, currency: string) => ({
    pk: tenantPk(tenantId),
    skPrefix: `POST#${account}#${currency}#`,
  }),
  /** gsi1 partition of an account's postings in every currency, by time. */
  postingList: (tenantId: string, account: string, createdAt: string, entryId: string) => ({
    gsi1pk: `${tenantPk(tenantId)}#POST#${account}`,
    gsi1sk: `${createdAt}#${entryId}`,
  }),
  postingListPartition: (tenantId: string, account: string): string => `${tenantPk(tenantId)}#POST#${account}`,

  /** Rates: the current snapshot (with 24 h statistics) and one candle per hour for the 24 h window. */
  ratesCurrent: { pk: 'RATES', sk: 'CURRENT' } as Key,
  rateCandle: (hour: string): Key => ({ pk: 'RATES', sk: `HOUR#${hour}` }),
  rateCandlePartition: 'RATES',
  rateCandleSk: (hour: string): string => `HOUR#${hour}`,

  /** Never written: the status check reads it to prove the table answers. */
  health: { pk: 'HEALTH', sk: 'HEALTH' } as Key,
} as const;
