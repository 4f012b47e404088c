/**
 * Every key of the single table is spelled here and nowhere else. Keys are readable `TYPE#id` strings.
 * Tenant data starts with the tenant id, so another tenant's id is simply not found.
 *
 * Access patterns (docs/data-model.md):
 * | item                | pk                          | sk                         | indexes                              |
 * |---------------------|-----------------------------|----------------------------|--------------------------------------|
 * | tenant              | TENANT#<tid>                | PROFILE                    | gsi1: TENANTS / <created_at>#<tid>   |
 * | OAuth app           | TENANT#<tid>                | APP#<app id>               |                                      |
 * | client credential   | CLIENT#<client id>          | CLIENT                     |                                      |
 * | access token        | TOKEN#<sha256>              | TOKEN                      | gsi1: CLIENT#<client id>#TOKENS      |
 * | API key (lookup)    | APIKEY#<sha256>             | APIKEY                     |                                      |
 * | API key (record)    | TENANT#<tid>                | APIKEY#<key id>            |                                      |
 * | usage + rate windows| TENANT#<tid>                | USAGE#<yyyy-mm-dd>         | hourly counters as attributes; `payments_usd`, the day's payments against the daily limit (in the creation transaction) |
 * | idempotency record  | TENANT#<tid>                | IDEM#<key>                 |                                      |
 * | outbox (one change) | OUTBOX#<first event id>     | OUTBOX                     | stream -> event-router               |
 * | balance row         | TENANT#<tid>                | BAL#<account>#<currency>   | (posting counters and the last change live on the row; a wallet's rows feed the event router) |
 * | journal entry       | TENANT#<tid>                | JOURNAL#<entry id>         | gsi1: TENANT#<tid>#JOURNAL / <at>#<id> |
 * | posting (history)   | TENANT#<tid>                | POST#<account>#<cur>#<at>#<entry id> | gsi1: TENANT#<tid>#POST#<account> / <at>#<id> |
 * | platform balance    | PLATFORM#<account>#<cur>#<shard> | BALANCE               | N shards per (account, currency)     |
 * | rates snapshot      | RATES                       | CURRENT                    |                                      |
 * | rates hour candle   | RATES                       | HOUR#<yyyy-mm-ddThh>       | TTL 26 h                             |
 * | webhook settings (A)| TENANT#<tid>                | WEBHOOK_SETTINGS           |                                      |
 * | webhook sub (B)     | TENANT#<tid>                | WEBHOOK#<id>               | guard WEBHOOK_URL#<sha256>, WEBHOOK_COUNT |
 * | webhook delivery    | TENANT#<tid>                | WHDELIVERY#<event>.<dest>  | TTL 30 days; a redelivery, until its first attempt is made: gsi3 WHREDELIVERIES#OPEN / <created_at>#<tid>#<id> |
 * | webhook attempt log | TENANT#<tid>                | WHLOG#<at>#<delivery>#<n>  | TTL 30 days                          |
 * | transaction export  | TENANT#<tid>                | EXPORT#<export id>         | TTL at the end of its retention (7 days); its file is S3 `exports/<tid>/<export id>.<csv|json>`; gsi3 (while pending or running): EXPORTS#OPEN / <created_at>#<tid>#<id> |
 * | payment             | TENANT#<tid>                | PAYMENT#<id>               | gsi3: PAYMENTS#WAITING#<network>#<native|token> / <expiry>#<tid>#<id> (while waiting); `state` deflated against the payment dictionary (shared/store/payment-item.ts); each change's events in one outbox item |
 * | payment list entry  | TENANT#<tid>                | PAYLIST#<id>               | gsi1: TENANT#<tid>#PAYMENTS / <created_at>#<id>; gsi2: TENANT#<tid>#PAYMENTS_BY_AMOUNT / <usd sort>#<id>; the filters a status change leaves alone (currency, network, token, order id, creation time, USD amount) |
 * | withdrawal          | TENANT#<tid>                | WITHDRAWAL#<id>            | gsi1: TENANT#<tid>#WITHDRAWALS / <created_at>#<id>; gsi2: TENANT#<tid>#WITHDRAWALS_BY_AMOUNT / <amount sort>#<id>; gsi3: WITHDRAWALS#<PENDING|PROCESSING|REVIEW|SOLANA> / <created_at>#<tid>#<id> (its work queue while pending or processing: `workQueueOf`) |
 * | refund              | TENANT#<tid>                | REFUND#<id>                | gsi1: TENANT#<tid>#PAYMENT#<pid>#REFUNDS / <created_at>#<id>; gsi2: TENANT#<tid>#REFUNDS / <created_at>#<id>; gsi3 (while awaiting its address): REFUNDS#AWAITING / <claim_expires_at>#<tid>#<id> |
 * | payment's refunded total | TENANT#<tid>           | REFUNDED#<payment id>      | `refunded` and `remaining` (of the payment's credit), moved in each refund's accept / release transaction |
 * | refund claim link   | REFUNDCLAIM#<token>         | CLAIM                      | -> tenant and refund (written with the refund; the claim page's only lookup) |
 * | payment link        | TENANT#<tid>                | PAYLINK#<id>               | gsi1: TENANT#<tid>#PAYLINKS / <created_at>#<id>; `completed_count`, `over_limit_count` moved by completing payments |
 * | payment link page   | PAYLINKPAGE#<slug>          | PAYLINKPAGE                | -> tenant and link (written with the link; the link page's only lookup) |
 * | link's payment      | TENANT#<tid>                | PAYLINKPAY#<link id>#<created_at>#<payment id> | written with the payment a visit opens (the link's payments list) |
 * | plan                | TENANT#<tid>                | PLAN#<id>                  | gsi1: TENANT#<tid>#PLANS / <created_at>#<id> |
 * | subscription        | TENANT#<tid>                | SUB#<id>                   | gsi1: TENANT#<tid>#SUBS / <created_at>#<id>; gsi3 (while it has a next action): SUBS#DUE / <next action at>#<tid>#<id> |
 * | subscription cycle  | TENANT#<tid>                | SUBCYCLE#<sub id>#<period, 6 digits> | the period's key: created once, in the transaction of its payment and the subscription's advance |
 * | tenant test clock   | TENANT#<tid>                | CLOCK                      | gsi1: CLOCKS / <tid> (offset honoured outside production only) |
 * | pull charge pending | SUBCHARGES#PENDING          | <network>#<token>#<charge reference> | a period's pull charge, written with its cycle; deleted in the transaction of the batch that sends it |
 * | daily withdrawal total | TENANT#<tid>              | WITHDRAWALS#DAY#<yyyy-mm-dd> | TTL 3 days (kept in the creation transaction) |
 * | deposit address     | ADDRESS#<family>#<lower addr> | ADDRESS                  | scanner's BatchGetItem               |
 * | checkout page       | CHECKOUT#<checkout id>      | CHECKOUT                   | -> tenant and payment (written with the payment; the checkout Lambda's only lookup) |
 * | open payment (chain)| TENANT#<tid>                | PAYMENT#<id>               | gsi3: PAYMENTS#OPEN#<network> / <created_at>#<tid>#<id> (confirming..sending, native waiting) |
 * | scanner cursor      | SCANNER#<network>           | CURSOR                     | (lease, block, recent hashes)        |
 * | chain-tx request    | CHAINTX#<network>#<reference> | REQUEST                  | gsi3 (while open): CHAINTX#<network>#OPEN / <created_at>#<reference> |
 * | nonce counter       | NONCE#<network>#<address>   | COUNTER                    | `next`: the wallet's next new nonce  |
 * | free nonce          | NONCE#<network>#<address>   | FREE#<nonce, 12 digits>    | released nonces, taken first         |
 * | wallet              | TENANT#<tid>                | WALLET#<wallet uuid>       | gsi1: TENANT#<tid>#WALLETS / <id, 12 digits> |
 * | wallet number       | TENANT#<tid>                | WALLETNO#<id, 12 digits>   | -> wallet uuid (paths name either)   |
 * | wallet sequence     | TENANT#<tid>                | WALLETS#SEQ                | `last`: the last id allocated        |
 * | wallet external id  | TENANT#<tid>                | WALLET_EXT#<external id>   | guard: unique per tenant             |
 * | wallet counter      | TENANT#<tid>                | WALLETS#COUNTER#<shard>    | (count kept in the create/delete transactions) |
 * | wallet transfer     | TENANT#<tid>                | WTRANSFER#<id>             | gsi1: TENANT#<tid>#WTRANSFERS / <created_at>#<id>; gsi3 (while accepted): WTRANSFERS#ACCEPTED / <created_at>#<tid>#<id> |
 * | re-drive record     | TENANT#<tid>                | REDRIVE#<kind>#<id>        | the reconciler's re-drives of one piece of accepted work; TTL 7 days |
 * | transaction (history) | TENANT#<tid>              | TXN#<type>#<id>            | gsi1: TENANT#<tid>#TXNS / <created_at>#<type>#<id> |
 * | transaction stats   | TENANT#<tid>                | TXSTATS#<yyyy-mm-dd>#<shard>, TXSTATS#ALL#<shard> | counters of the movements created that UTC day, and of all time |
 * | custody account     | TENANT#<tid>                | CUSTODY#<account id>       | gsi1: TENANT#<tid>#CUSTODY / <created_at>#<account id> |
 * | custody address     | TENANT#<tid>                | CUSTODYADDR#<account id>#<chain> | one per account and chain (+ its ADDRESS# item for the scanners); gsi3 on polled chains (SOL): CUSTODYADDRS#<chain> / <created_at>#<tid>#<account id> |
 * | custody transfer    | TENANT#<tid>                | CUSTODYTX#<transfer id>    |                                      |
 * | custody policy      | TENANT#<tid>                | CUSTODYPOLICY              | the operator's review threshold and allowlist |
 * | custody deposit     | TENANT#<tid>                | CUSTODYDEP#<network:tx:log> | gsi3 (while open): CUSTODYDEPOSITS#OPEN#<network> / <detected_at>#<tid>#<deposit id> |
 * | custody sent, 10 min| TENANT#<tid>                | CUSTODYOUT#<account id>#<yyyy-mm-ddThh:m0> | USDT an account sent without review in those ten minutes (its rolling 24-hour total; in the creation transaction); TTL 2 days |
 * | chain-tx follower lease | LEASE#chain-tx-follower#<network> | LEASE            | one holder at a time, with expiry    |
 * | hot wallet coin (UTXO) | COIN#<network>#<txid>:<vout> | COIN                   | gsi2 (while available): COINS#<network>#AVAILABLE / <sats, 20 digits>#<txid>:<vout>; gsi1 (once reserved): COINS#<network>#BATCH#<batch> / <txid>:<vout> |
 */
import { chainAddressForm } from '../domain/chain-addresses.js';
import type { Decimal } from '../domain/money.js';
import { ROUND_PAYOUT, toFixed } from '../domain/money.js';
import type { PaymentQueue } from '../domain/payments.js';
import type { WithdrawalQueue } from '../domain/withdrawals.js';

/** Stream records that the event router receives: outbox items only (counters and tokens also write). */
export const OUTBOX_KEY_PREFIX = 'OUTBOX#';
/** Stream records the event router also receives: a wallet's balance rows (`wallet.balance_changed` is told from them). */
export const WALLET_BALANCE_SK_PREFIX = 'BAL#wallet:';
/** Sort-key prefix of payment items: the stream records of their writes carry the payments' events. */
export const PAYMENT_SK_PREFIX = 'PAYMENT#';
/** Sort-key prefix of a payment's list entry (not a payment item: the event router never receives it). */
const PAYMENT_ENTRY_SK_PREFIX = 'PAYLIST#';

export interface Key {
  readonly pk: string;
  readonly sk: string;
}

const tenantPk = (tenantId: string): string => `TENANT#${tenantId}`;
const WALLET_TRANSFER_QUEUE_PK = 'WTRANSFERS#ACCEPTED';
const EXPORT_QUEUE_PK = 'EXPORTS#OPEN';
const REDELIVERY_QUEUE_PK = 'WHREDELIVERIES#OPEN';
const REFUND_AWAITING_PK = 'REFUNDS#AWAITING';

/** Sortable text of a non-negative USD amount (payments by amount): 18 integer digits, 2 decimals. */
export function usdAmountSortKey(amountUsd: Decimal): string {
  const [int, frac = ''] = toFixed(amountUsd, 2, 'half-up').split('.');
  return `${(int ?? '0').padStart(18, '0')}.${frac.padEnd(2, '0')}`;
}

/** Sortable text of a non-negative crypto amount (withdrawals by amount): 20 integer digits, 18 decimals. */
export function cryptoAmountSortKey(amount: Decimal): string {
  const [int, frac = ''] = toFixed(amount, 18, ROUND_PAYOUT).split('.');
  return `${(int ?? '0').padStart(20, '0')}.${frac.padEnd(18, '0')}`;
}

const paymentQueuePk = (queue: NonNullable<PaymentQueue>): string =>
  queue.kind === 'waiting' ? `PAYMENTS#WAITING#${queue.network}#${queue.asset}` : `PAYMENTS#OPEN#${queue.network}`;

/** Upper bound of the gsi3 sort keys `<time>#...` due at or before `time`. */
const dueBy = (time: string): string => `${time}#~`;

/** The bounds of a `<created_at>#<id>` sort key range; an open side reaches the first or last key. */
const createdRange = (from?: string, to?: string) => ({ from: from ?? '0000', to: `${to ?? '9999'}~` });

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

  usageDay: (tenantId: string, day: string): Key => ({ pk: tenantPk(tenantId), sk: `USAGE#${day}` }),
  /** Daily usage items of one month (`yyyy-mm`), for a begins_with query. */
  usageMonthPrefix: (tenantId: string, month: string) => ({ pk: tenantPk(tenantId), skPrefix: `USAGE#${month}` }),
  idempotency: (tenantId: string, idempotencyKey: string): Key => ({
    pk: tenantPk(tenantId),
    sk: `IDEM#${idempotencyKey}`,
  }),
  /** Whether a key names an idempotency record (a transaction item completing one is told apart by it). */
  isIdempotency: (key: Readonly<Record<string, unknown>> | undefined): boolean => typeof key?.sk === 'string' && key.sk.startsWith('IDEM#'),

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

  /** Chain transactions (shared/store/chain-tx.ts): one request per (network, caller's reference). */
  chainTx: (network: string, reference: string): Key => ({ pk: `CHAINTX#${network}#${reference}`, sk: 'REQUEST' }),
  /** gsi3 work queue of a network's open chain-tx requests, oldest first (removed when final). */
  chainTxOpen: (network: string, createdAt: string, reference: string) => ({
    gsi3pk: `CHAINTX#${network}#OPEN`,
    gsi3sk: `${createdAt}#${reference}`,
  }),
  chainTxOpenPartition: (network: string): string => `CHAINTX#${network}#OPEN`,
  /** Nonce manager of one (network, wallet address): the counter, and released nonces as `FREE#` items. */
  nonceCounter: (network: string, address: string): Key => ({ pk: `NONCE#${network}#${address.toLowerCase()}`, sk: 'COUNTER' }),
  nonceFree: (network: string, address: string, nonce: number): Key => ({
    pk: `NONCE#${network}#${address.toLowerCase()}`,
    sk: `FREE#${String(nonce).padStart(12, '0')}`,
  }),
  nonceFreePrefix: (network: string, address: string) => ({ pk: `NONCE#${network}#${address.toLowerCase()}`, skPrefix: 'FREE#' }),
  /** The chain-tx follower's lease of one network: one follower at a time. */
  chainTxFollowerLease: (network: string): Key => ({ pk: `LEASE#chain-tx-follower#${network}`, sk: 'LEASE' }),

  /**
   * Payments: the record (its work queue on gsi3) and its list entry, which carries the per-tenant lists (gsi1 by
   * time, gsi2 by USD amount), so a payment's status changes rewrite no list index.
   */
  payment: (tenantId: string, paymentId: string): Key => ({ pk: tenantPk(tenantId), sk: `${PAYMENT_SK_PREFIX}${paymentId}` }),
  paymentEntry: (tenantId: string, paymentId: string): Key => ({ pk: tenantPk(tenantId), sk: `${PAYMENT_ENTRY_SK_PREFIX}${paymentId}` }),
  /** A tenant's payment items, and its payments' list entries, for a begins_with query (the stored-form upgrade). */
  paymentPrefix: (tenantId: string) => ({ pk: tenantPk(tenantId), skPrefix: PAYMENT_SK_PREFIX }),
  paymentEntryPrefix: (tenantId: string) => ({ pk: tenantPk(tenantId), skPrefix: PAYMENT_ENTRY_SK_PREFIX }),
  /** The payment a list entry stands for (null: not an entry's key). */
  paymentOfEntry: (entry: Key): Key | null =>
    entry.sk.startsWith(PAYMENT_ENTRY_SK_PREFIX) ? { pk: entry.pk, sk: `${PAYMENT_SK_PREFIX}${entry.sk.slice(PAYMENT_ENTRY_SK_PREFIX.length)}` } : null,
  paymentList: (tenantId: string, createdAt: string, paymentId: string) => ({ gsi1pk: `${tenantPk(tenantId)}#PAYMENTS`, gsi1sk: `${createdAt}#${paymentId}` }),
  paymentListPartition: (tenantId: string): string => `${tenantPk(tenantId)}#PAYMENTS`,
  paymentAmountList: (tenantId: string, amountUsd: Decimal, paymentId: string) => ({
    gsi2pk: `${tenantPk(tenantId)}#PAYMENTS_BY_AMOUNT`,
    gsi2sk: `${usdAmountSortKey(amountUsd)}#${paymentId}`,
  }),
  paymentAmountPartition: (tenantId: string): string => `${tenantPk(tenantId)}#PAYMENTS_BY_AMOUNT`,
  /**
   * gsi3 work queue of a payment (`workQueueOf` in the domain decides which): waiting payments by expiry time, one
   * partition per (network, native coin or token), so the expirer reads them by due time and the scanner's native
   * balance check reads only its network's native partition; open payments (confirming .. sending) per network.
   */
  paymentQueue: (queue: PaymentQueue, p: { tenantId: string; id: string; expiryTime: string; createdAt: string }): Record<string, string> => {
    if (queue === null) return {};
    return queue.kind === 'waiting'
      ? { gsi3pk: paymentQueuePk(queue), gsi3sk: `${p.expiryTime}#${p.tenantId}#${p.id}` }
      : { gsi3pk: paymentQueuePk(queue), gsi3sk: `${p.createdAt}#${p.tenantId}#${p.id}` };
  },
  paymentQueuePartition: paymentQueuePk,
  /** Sort-key bound of the waiting payments due at or before `time`. */
  paymentsDueBy: dueBy,
  /** Deposit address -> payment, for the scanner's batched lookup (the address as chain logs show it). */
  depositAddress: (family: string, address: string): Key => ({ pk: `ADDRESS#${family}#${chainAddressForm(family, address)}`, sk: 'ADDRESS' }),
  /** The hosted checkout page's name of a payment -> its tenant and transaction id. */
  checkout: (checkoutId: string): Key => ({ pk: `CHECKOUT#${checkoutId}`, sk: 'CHECKOUT' }),
  /**
   * The hot wallet's coins on a UTXO network (shared/store/btc-coins.ts): one item per output; while available it is
   * in its network's gsi2 list, largest first; once a batch reserves it, in that batch's gsi1 list.
   */
  hotCoin: (network: string, txid: string, vout: number): Key => ({ pk: `COIN#${network}#${txid.toLowerCase()}:${vout}`, sk: 'COIN' }),
  hotCoinAvailable: (network: string, value: bigint, txid: string, vout: number) => ({
    gsi2pk: `COINS#${network}#AVAILABLE`,
    gsi2sk: `${value.toString().padStart(20, '0')}#${txid.toLowerCase()}:${vout}`,
  }),
  hotCoinsAvailablePartition: (network: string): string => `COINS#${network}#AVAILABLE`,
  hotCoinOfBatch: (network: string, batch: string, txid: string, vout: number) => ({
    gsi1pk: `COINS#${network}#BATCH#${batch}`,
    gsi1sk: `${txid.toLowerCase()}:${vout}`,
  }),
  hotCoinsOfBatchPartition: (network: string, batch: string): string => `COINS#${network}#BATCH#${batch}`,
  /** Scanner: per-network cursor, lease and recent block hashes. */
  scannerCursor: (network: string): Key => ({ pk: `SCANNER#${network}`, sk: 'CURSOR' }),

  /** Withdrawals: the record, its per-tenant lists (gsi1 by time, gsi2 by amount) and the batcher's queue (gsi3, while pending). */
  withdrawal: (tenantId: string, withdrawalId: string): Key => ({ pk: tenantPk(tenantId), sk: `WITHDRAWAL#${withdrawalId}` }),
  withdrawalList: (tenantId: string, createdAt: string, withdrawalId: string) => ({
    gsi1pk: `${tenantPk(tenantId)}#WITHDRAWALS`,
    gsi1sk: `${createdAt}#${withdrawalId}`,
  }),
  withdrawalListPartition: (tenantId: string): string => `${tenantPk(tenantId)}#WITHDRAWALS`,
  withdrawalAmountList: (tenantId: string, amount: Decimal, withdrawalId: string) => ({
    gsi2pk: `${tenantPk(tenantId)}#WITHDRAWALS_BY_AMOUNT`,
    gsi2sk: `${cryptoAmountSortKey(amount)}#${withdrawalId}`,
  }),
  withdrawalAmountPartition: (tenantId: string): string => `${tenantPk(tenantId)}#WITHDRAWALS_BY_AMOUNT`,
  /** gsi3 work queue of a withdrawal (`workQueueOf` in the domain decides which), oldest first. */
  withdrawalQueue: (queue: WithdrawalQueue | null, createdAt: string, tenantId: string, withdrawalId: string): Record<string, string> =>
    queue === null ? {} : { gsi3pk: `WITHDRAWALS#${queue.toUpperCase()}`, gsi3sk: `${createdAt}#${tenantId}#${withdrawalId}` },
  withdrawalQueuePartition: (queue: WithdrawalQueue): string => `WITHDRAWALS#${queue.toUpperCase()}`,
  /** Bounds of a tenant's withdrawals by creation time (gsi1 sort keys `<created_at>#<id>`). */
  withdrawalCreatedRange: createdRange,
  withdrawalDay: (tenantId: string, day: string): Key => ({ pk: tenantPk(tenantId), sk: `WITHDRAWALS#DAY#${day}` }),

  /** Webhooks (shared/store/webhooks.ts): variant-A settings, variant-B subscriptions with a URL guard and a count. */
  webhookSettings: (tenantId: string): Key => ({ pk: tenantPk(tenantId), sk: 'WEBHOOK_SETTINGS' }),
  webhookSubscription: (tenantId: string, id: string): Key => ({ pk: tenantPk(tenantId), sk: `WEBHOOK#${id}` }),
  webhookSubscriptionPrefix: (tenantId: string) => ({ pk: tenantPk(tenantId), skPrefix: 'WEBHOOK#' }),
  webhookUrlGuard: (tenantId: string, urlHash: string): Key => ({ pk: tenantPk(tenantId), sk: `WEBHOOK_URL#${urlHash}` }),
  webhookCount: (tenantId: string): Key => ({ pk: tenantPk(tenantId), sk: 'WEBHOOK_COUNT' }),
  /** One delivery per (event, destination), keyed by its natural id; attempts logged by time (TTL 30 days). */
  webhookDelivery: (tenantId: string, deliveryId: string): Key => ({ pk: tenantPk(tenantId), sk: `WHDELIVERY#${deliveryId}` }),
  /** gsi3 work queue of the redeliveries accepted (202) whose first attempt is not made yet, oldest first: the reconciler's. */
  redeliveryQueue: (createdAt: string, tenantId: string, deliveryId: string) => ({
    gsi3pk: REDELIVERY_QUEUE_PK,
    gsi3sk: `${createdAt}#${tenantId}#${deliveryId}`,
  }),
  redeliveryQueuePartition: (): string => REDELIVERY_QUEUE_PK,
  webhookAttempt: (tenantId: string, at: string, deliveryId: string, attempt: number): Key => ({
    pk: tenantPk(tenantId),
    sk: `WHLOG#${at}#${deliveryId}#${attempt}`,
  }),
  /** The delivery id an item's sk names (`WHDELIVERY#<delivery>`), stored nowhere else on the item. */
  webhookDeliveryIdOf: (sk: string): string => sk.slice('WHDELIVERY#'.length),
  /** The delivery id an attempt-log sk names (`WHLOG#<at>#<delivery>#<n>`: `at` holds no '#'), stored nowhere else on the item. */
  webhookAttemptDeliveryIdOf: (sk: string): string => sk.slice(sk.indexOf('#', 'WHLOG#'.length) + 1, sk.lastIndexOf('#')),
  webhookAttemptSk: (at: string): string => `WHLOG#${at}`,
  webhookAttemptPrefix: 'WHLOG#',

  /**
   * Transaction exports (shared/store/exports.ts): the export job, under its tenant, so another tenant's export id
   * is simply not found. Read by id only (no list).
   */
  transactionExport: (tenantId: string, exportId: string): Key => ({ pk: tenantPk(tenantId), sk: `EXPORT#${exportId}` }),
  /** gsi3 work queue of the exports not yet written (pending or running), oldest first: the reconciler's. */
  exportQueue: (createdAt: string, tenantId: string, exportId: string) => ({ gsi3pk: EXPORT_QUEUE_PK, gsi3sk: `${createdAt}#${tenantId}#${exportId}` }),
  exportQueuePartition: (): string => EXPORT_QUEUE_PK,

  /** Wallets (shared/store/wallets.ts): the record by uuid, its number, the sequence, the external id guard, the count. */
  wallet: (tenantId: string, walletId: string): Key => ({ pk: tenantPk(tenantId), sk: `WALLET#${walletId}` }),
  walletList: (tenantId: string, id: number) => ({ gsi1pk: `${tenantPk(tenantId)}#WALLETS`, gsi1sk: String(id).padStart(12, '0') }),
  walletListPartition: (tenantId: string): string => `${tenantPk(tenantId)}#WALLETS`,
  walletNumber: (tenantId: string, id: number): Key => ({ pk: tenantPk(tenantId), sk: `WALLETNO#${String(id).padStart(12, '0')}` }),
  walletSequence: (tenantId: string): Key => ({ pk: tenantPk(tenantId), sk: 'WALLETS#SEQ' }),
  walletExternalId: (tenantId: string, externalId: string): Key => ({ pk: tenantPk(tenantId), sk: `WALLET_EXT#${externalId}` }),
  walletCounter: (tenantId: string, shard: number): Key => ({ pk: tenantPk(tenantId), sk: `WALLETS#COUNTER#${shard}` }),
  walletCounterPrefix: (tenantId: string) => ({ pk: tenantPk(tenantId), skPrefix: 'WALLETS#COUNTER#' }),
  /** Wallet transfers: the record and the tenant's history (gsi1, by creation). */
  walletTransfer: (tenantId: string, transferId: string): Key => ({ pk: tenantPk(tenantId), sk: `WTRANSFER#${transferId}` }),
  walletTransferList: (tenantId: string, createdAt: string, transferId: string) => ({
    gsi1pk: `${tenantPk(tenantId)}#WTRANSFERS`,
    gsi1sk: `${createdAt}#${transferId}`,
  }),
  walletTransferListPartition: (tenantId: string): string => `${tenantPk(tenantId)}#WTRANSFERS`,
  /** gsi3 work queue of the accepted transfers (not yet settled), oldest first: the reconciler's. */
  walletTransferQueue: (createdAt: string, tenantId: string, transferId: string) => ({
    gsi3pk: WALLET_TRANSFER_QUEUE_PK,
    gsi3sk: `${createdAt}#${tenantId}#${transferId}`,
  }),
  walletTransferQueuePartition: (): string => WALLET_TRANSFER_QUEUE_PK,
  /** Sort-key bound of a `<created_at>#<tid>#<id>` work queue's items created at or before `time`. */
  createdBy: dueBy,

  /** The reconciler's re-drives of one piece of accepted work (`kind`: wallet_transfer, transaction_export, withdrawal, webhook_redelivery). */
  redrive: (tenantId: string, kind: string, id: string): Key => ({ pk: tenantPk(tenantId), sk: `REDRIVE#${kind}#${id}` }),

  /**
   * The transaction history (shared/store/transactions.ts): one record per movement, written with it, listed
   * newest first on gsi1; and the statistics counters, per UTC day of creation and shard.
   */
  transaction: (tenantId: string, type: string, id: string): Key => ({ pk: tenantPk(tenantId), sk: `TXN#${type}#${id}` }),
  transactionList: (tenantId: string, createdAt: string, type: string, id: string) => ({
    gsi1pk: `${tenantPk(tenantId)}#TXNS`,
    gsi1sk: `${createdAt}#${type}#${id}`,
  }),
  transactionListPartition: (tenantId: string): string => `${tenantPk(tenantId)}#TXNS`,
  /** gsi1sk bounds of the records created from `from` to `to` (ISO 8601 instants, both inclusive). */
  transactionListRange: (from: string, to: string) => ({ from, to: `${to}#~` }),
  transactionStats: (tenantId: string, day: string, shard: number): Key => ({ pk: tenantPk(tenantId), sk: `TXSTATS#${day}#${shard}` }),
  /** The all-time statistics counters (`ALL` sorts after every day, so no range of days reaches it). */
  transactionStatsAllTime: (tenantId: string, shard: number): Key => ({ pk: tenantPk(tenantId), sk: `TXSTATS#ALL#${shard}` }),
  transactionStatsAllTimePrefix: (tenantId: string) => ({ pk: tenantPk(tenantId), skPrefix: 'TXSTATS#ALL#' }),
  /** sk bounds of the stats items of the days `from` to `to` (yyyy-mm-dd, both inclusive). */
  transactionStatsRange: (tenantId: string, from: string, to: string) => ({ pk: tenantPk(tenantId), from: `TXSTATS#${from}#`, to: `TXSTATS#${to}#~` }),

  /** Custody (shared/store/custody.ts): accounts listed by creation, their deposit addresses, their transfers. */
  custodyAccount: (tenantId: string, accountId: string): Key => ({ pk: tenantPk(tenantId), sk: `CUSTODY#${accountId}` }),
  custodyAccountList: (tenantId: string, createdAt: string, accountId: string) => ({
    gsi1pk: `${tenantPk(tenantId)}#CUSTODY`,
    gsi1sk: `${createdAt}#${accountId}`,
  }),
  custodyAccountListPartition: (tenantId: string): string => `${tenantPk(tenantId)}#CUSTODY`,
  custodyAddress: (tenantId: string, accountId: string, blockchain: string): Key => ({ pk: tenantPk(tenantId), sk: `CUSTODYADDR#${accountId}#${blockchain}` }),
  custodyAddressPrefix: (tenantId: string, accountId: string) => ({ pk: tenantPk(tenantId), skPrefix: `CUSTODYADDR#${accountId}#` }),
  /** gsi3 list of a polled chain's custody addresses (Solana: each one's history is read), oldest first. */
  custodyAddressWatch: (blockchain: string, createdAt: string, tenantId: string, accountId: string) => ({
    gsi3pk: `CUSTODYADDRS#${blockchain}`,
    gsi3sk: `${createdAt}#${tenantId}#${accountId}`,
  }),
  custodyAddressWatchPartition: (blockchain: string): string => `CUSTODYADDRS#${blockchain}`,
  custodyTransfer: (tenantId: string, transferId: string): Key => ({ pk: tenantPk(tenantId), sk: `CUSTODYTX#${transferId}` }),
  /** The tenant's custody withdrawal review policy (the operator's). */
  custodyPolicy: (tenantId: string): Key => ({ pk: tenantPk(tenantId), sk: 'CUSTODYPOLICY' }),
  /** What an account sent without review in the ten minutes starting at `bucket` (`yyyy-mm-ddThh:m0`), its rolling total's part. */
  custodyOutflow: (tenantId: string, accountId: string, bucket: string): Key => ({ pk: tenantPk(tenantId), sk: `CUSTODYOUT#${accountId}#${bucket}` }),
  custodyDeposit: (tenantId: string, depositId: string): Key => ({ pk: tenantPk(tenantId), sk: `CUSTODYDEP#${depositId}` }),
  /** gsi3 work queue of a network's open custody deposits (confirming, credited, sweeping), oldest first. */
  custodyDepositQueue: (network: string, detectedAt: string, tenantId: string, depositId: string) => ({
    gsi3pk: `CUSTODYDEPOSITS#OPEN#${network}`,
    gsi3sk: `${detectedAt}#${tenantId}#${depositId}`,
  }),
  custodyDepositQueuePartition: (network: string): string => `CUSTODYDEPOSITS#OPEN#${network}`,

  /** Never written: the status check reads it to prove the table answers. */
  health: { pk: 'HEALTH', sk: 'HEALTH' } as Key,
} as const;

/**
 * Refunds (shared/store/refunds.ts): the record, its payment's list (gsi1), its tenant's list (gsi2), the claim
 * expirer's queue (gsi3), the payment's refunded total, the claim link. An object of its own beside `keys`, so the
 * Lambdas that never touch a refund do not carry it (every bundle takes `keys` whole).
 */
export const refundKeys = {
  refund: (tenantId: string, refundId: string): Key => ({ pk: tenantPk(tenantId), sk: `REFUND#${refundId}` }),
  refundOfPayment: (tenantId: string, paymentId: string, createdAt: string, refundId: string) => ({
    gsi1pk: `${tenantPk(tenantId)}#PAYMENT#${paymentId}#REFUNDS`,
    gsi1sk: `${createdAt}#${refundId}`,
  }),
  refundsOfPaymentPartition: (tenantId: string, paymentId: string): string => `${tenantPk(tenantId)}#PAYMENT#${paymentId}#REFUNDS`,
  /** gsi2 of every refund: the tenant's refunds by creation (the operator's list). */
  refundOfTenant: (tenantId: string, createdAt: string, refundId: string) => ({
    gsi2pk: `${tenantPk(tenantId)}#REFUNDS`,
    gsi2sk: `${createdAt}#${refundId}`,
  }),
  refundsOfTenantPartition: (tenantId: string): string => `${tenantPk(tenantId)}#REFUNDS`,
  /** gsi3 of a refund awaiting its address, by claim deadline (the expirer reads those due). */
  refundAwaiting: (claimExpiresAt: string | null, tenantId: string, refundId: string): Record<string, string> =>
    claimExpiresAt === null ? {} : { gsi3pk: REFUND_AWAITING_PK, gsi3sk: `${claimExpiresAt}#${tenantId}#${refundId}` },
  refundAwaitingPartition: (): string => REFUND_AWAITING_PK,
  /** Sort-key bound of the claims due at or before `time`. */
  refundsDueBy: dueBy,
  paymentRefunded: (tenantId: string, paymentId: string): Key => ({ pk: tenantPk(tenantId), sk: `REFUNDED#${paymentId}` }),
  refundClaim: (token: string): Key => ({ pk: `REFUNDCLAIM#${token}`, sk: 'CLAIM' }),
} as const;

/**
 * Payment links (shared/store/payment-links.ts): the link, its tenant's list (gsi1), the public page's lookup by slug,
 * and one entry per payment the link opened (its payments list, oldest first). An object of its own beside `keys`,
 * like `refundKeys`.
 */
export const paymentLinkKeys = {
  link: (tenantId: string, linkId: string): Key => ({ pk: tenantPk(tenantId), sk: `PAYLINK#${linkId}` }),
  linkList: (tenantId: string, createdAt: string, linkId: string) => ({ gsi1pk: `${tenantPk(tenantId)}#PAYLINKS`, gsi1sk: `${createdAt}#${linkId}` }),
  linkListPartition: (tenantId: string): string => `${tenantPk(tenantId)}#PAYLINKS`,
  linkPage: (slug: string): Key => ({ pk: `PAYLINKPAGE#${slug}`, sk: 'PAYLINKPAGE' }),
  linkPayment: (tenantId: string, linkId: string, createdAt: string, paymentId: string): Key => ({
    pk: tenantPk(tenantId),
    sk: `PAYLINKPAY#${linkId}#${createdAt}#${paymentId}`,
  }),
  linkPaymentPrefix: (tenantId: string, linkId: string) => ({ pk: tenantPk(tenantId), skPrefix: `PAYLINKPAY#${linkId}#` }),
} as const;

/* ---------------------------------------------------------------- plans, subscriptions, test clocks (rows in the header) */
const SUBSCRIPTIONS_DUE_PK = 'SUBS#DUE';
const PENDING_CHARGES_PK = 'SUBCHARGES#PENDING';
const CLOCKS_PK = 'CLOCKS';

export const subscriptionKeys = {
  plan: (tenantId: string, planId: string): Key => ({ pk: tenantPk(tenantId), sk: `PLAN#${planId}` }),
  planOfTenant: (tenantId: string, createdAt: string, planId: string) => ({ gsi1pk: `${tenantPk(tenantId)}#PLANS`, gsi1sk: `${createdAt}#${planId}` }),
  subscription: (tenantId: string, id: string): Key => ({ pk: tenantPk(tenantId), sk: `SUB#${id}` }),
  subscriptionOfTenant: (tenantId: string, createdAt: string, id: string) => ({ gsi1pk: `${tenantPk(tenantId)}#SUBS`, gsi1sk: `${createdAt}#${id}` }),
  /** gsi3 of a subscription with a next action (the advancer reads those due). */
  subscriptionDue: (at: string | null, tenantId: string, id: string): Record<string, string> =>
    at === null ? {} : { gsi3pk: SUBSCRIPTIONS_DUE_PK, gsi3sk: `${at}#${tenantId}#${id}` },
  subscriptionsDuePartition: (): string => SUBSCRIPTIONS_DUE_PK,
  subscriptionsDueBy: dueBy,
  cycle: (tenantId: string, subscriptionId: string, index: number): Key => ({
    pk: tenantPk(tenantId),
    sk: `SUBCYCLE#${subscriptionId}#${String(index).padStart(6, '0')}`,
  }),
  cyclesPrefix: (tenantId: string, subscriptionId: string) => ({ pk: tenantPk(tenantId), skPrefix: `SUBCYCLE#${subscriptionId}#` }),
  clock: (tenantId: string): Key => ({ pk: tenantPk(tenantId), sk: 'CLOCK' }),
  clockOfTenant: (tenantId: string) => ({ gsi1pk: CLOCKS_PK, gsi1sk: tenantId }),
  clocksPartition: (): string => CLOCKS_PK,
  /** A pull period's charge waiting for its batch (one partition, sorted by network and token: a batch's group). */
  pendingCharge: (network: string, token: string, reference: string): Key => ({ pk: PENDING_CHARGES_PK, sk: `${network}#${token.toLowerCase()}#${reference}` }),
  pendingChargesPartition: (): string => PENDING_CHARGES_PK,
} as const;
