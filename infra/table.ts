import { OUTBOX_KEY_PREFIX, WALLET_BALANCE_SK_PREFIX } from '../shared/store/keys.js';

/**
 * The single table, as data. CDK (infra/cdk) and the local stack (infra/local) both build the table from
 * this definition, so the two cannot drift. Every key is spelled in shared/store/keys.ts.
 */
export const TABLE = {
  partitionKey: 'pk',
  sortKey: 'sk',
  ttlAttribute: 'ttl',
  /** Stream records carry the new image: the event router reads outbox items and wallet balance rows from it. */
  streamView: 'NEW_IMAGE',
  /**
   * Sparse global secondary indexes (an item appears only if it has the index's key attributes):
   * - gsi1: per-tenant lists ordered by creation time (payments, withdrawals, apps, tenants)
   * - gsi2: per-tenant lists ordered by amount, and secondary lookups (order id, client id); a tenant's refunds by time
   * - gsi3: work queues ordered by due time (payments by expiry, withdrawals by status)
   */
  indexes: [
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
    { name: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk' },
  ],
} as const;

export type IndexName = (typeof TABLE.indexes)[number]['name'];

/**
 * The stream records the event router receives (the CDK mapping's filters and the local stream source's, so
 * the two cannot drift): new outbox items (one per committed change, holding all its events) and every write of a
 * wallet's balance row (`wallet.balance_changed`).
 * Counters, tokens and rate windows write the table too; nothing else reaches the router. Prefixes are spelled
 * in shared/store/keys.ts.
 */
export const ROUTED_RECORDS: readonly { readonly eventNames: readonly ('INSERT' | 'MODIFY')[]; readonly key: string; readonly prefix: string }[] = [
  { eventNames: ['INSERT'], key: TABLE.partitionKey, prefix: OUTBOX_KEY_PREFIX },
  { eventNames: ['INSERT', 'MODIFY'], key: TABLE.sortKey, prefix: WALLET_BALANCE_SK_PREFIX },
];

export { OUTBOX_KEY_PREFIX };
