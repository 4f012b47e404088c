import { BTC_NETWORKS } from '../domain/bitcoin.js';
import type { BtcNetwork } from '../domain/bitcoin.js';
import type { TenantLimits } from '../domain/tenant.js';
import { parseNetworkFeeOverrides } from '../domain/withdrawal-fees.js';
import {
  bigintDigits,
  boolean,
  decimal,
  decimalNumber,
  decimalValue,
  int,
  jsonRecord,
  list,
  nonEmptyValue,
  optionalInt,
  optionalMatching,
  optionalOneOf,
  optionalText,
  optionalUrl,
  parsedBy,
  positiveInt,
  Refusal,
  text,
  textOr,
  url,
  urlValue,
  usdLimit,
} from './readers.js';
import type { Reader } from './readers.js';

/**
 * Configuration, read once on first use (a Lambda's cold start, or the local stack after it has set the
 * environment) by a table of small typed readers (./readers.ts), one per variable. A missing or malformed value
 * fails there, not in the middle of a request. No schema library: this runs at every cold start.
 */

const fields = {
  TABLE_NAME: text(),
  AWS_REGION: textOr('us-east-1'),
  /** `local` is the embedded stack; anything else is a deployed stage. */
  STAGE: textOr('prod'),
  /** Plain-HTTP loopback callback URLs: on for the local stack, never in AWS. */
  ALLOW_LOOPBACK_CALLBACKS: boolean(false),
  ACCESS_TOKEN_TTL_SECONDS: positiveInt(3600),
  DEFAULT_REQUESTS_PER_HOUR: positiveInt(1000),
  DEFAULT_PAYMENT_CREATIONS_PER_HOUR: positiveInt(100),
  IDEMPOTENCY_TTL_SECONDS: positiveInt(24 * 3600),
  /** KMS key that encrypts stored secrets (webhook secrets). */
  SECRETS_KEY_ID: optionalText(),
  /** Public base URL of the API, for links in answers (`next`, `previous`) and the OpenAPI document. */
  PUBLIC_BASE_URL: optionalUrl(),
  /** Market data: `http` (a CoinGecko-style simple/price API) or `reference` (offline table); default: http in prod, reference elsewhere. */
  RATES_SOURCE: optionalOneOf(['http', 'reference']),
  /** Base URL of the simple/price API (`<url>/simple/price?ids=...`). */
  RATES_SOURCE_URL: url('https://api.coingecko.com/api/v3'),
  /** Second source of the same shape, asked when the first fails or times out. */
  RATES_FALLBACK_URL: optionalUrl(),
  RATES_TIMEOUT_MS: positiveInt(5000),
  /** Rows per (platform account, currency); each write picks one at random, reads sum them. */
  FEE_SHARDS: int({ min: 1, max: 50 }, 8),
  /** Currency codes switched off (comma-separated): left out of currencies, rates and new payments. */
  DISABLED_CURRENCIES: list(),
  /** Token contract overrides as JSON `{"USDTERC20":"0x..."}` (the local stack passes its deployed test tokens). */
  TOKEN_CONTRACTS: jsonRecord(nonEmptyValue, 'must be a JSON object of currency code to address'),
  /**
   * Withdrawal network fees per currency, overriding the defaults (shared/domain/withdrawals.ts), as JSON
   * `{"USDTERC20":"1.5"}`: catalogue currency codes to non-negative decimal strings.
   */
  WITHDRAWAL_NETWORK_FEES: parsedBy(parseNetworkFeeOverrides),
  /** Chain transactions: JSON-RPC endpoint per EVM network, `{"ETH":"https://..."}`; the follower follows each. */
  EVM_RPC_URLS: jsonRecord(urlValue, 'must be a JSON object of network to RPC URL'),
  /**
   * Forwarder factories per network, `{"ETH":"0x...","TRX":"T..."}`: deposit addresses are made (and swept) only on
   * these. EVM networks share one deterministic address; TRON has its own.
   */
  FORWARDER_FACTORIES: jsonRecord(nonEmptyValue, 'must be a JSON object of network to factory address'),
  /** The forwarder implementation on TRON (base58): part of the clone init code, so of every TRON deposit address. */
  FORWARDER_IMPLEMENTATION_TRX: optionalText(),
  /** TRON: base URL of a TronGrid-compatible API (full-node `/wallet/*` and `/v1/blocks/{n}/events`); TRON is off without it. */
  TRON_API_URL: optionalUrl(),
  /** Sent as `TRON-PRO-API-KEY` (TronGrid's key header). */
  TRON_API_KEY: optionalText(),
  /** Lifetime of a signed TRON transaction: its expiration is the head block's time plus this (java-tron allows up to 24 h). */
  TRON_TX_EXPIRATION_SECONDS: int({ min: 10, max: 86_400 }, 120),
  /** Default `fee_limit` of a TRON contract call, in sun (1 TRX = 1,000,000 sun). */
  TRON_FEE_LIMIT_SUN: bigintDigits('100000000'),
  /**
   * Bitcoin: base URL of an Esplora-compatible HTTP API (Blockstream's esplora/electrs, self-hosted or a provider;
   * shared/chain/btc/esplora.ts). BTC is served only with it and the hot wallet's key (`HOT_WALLET_KEY_ID`).
   */
  BTC_API_URL: optionalUrl(),
  /**
   * Bitcoin: the most waiting payments one scanner pass looks up in the mempool (one API call each; the longest
   * unchecked first, so each is looked up every ceil(waiting / this) passes).
   */
  BTC_MEMPOOL_LOOKUPS_PER_PASS: int({ min: 0, max: 10_000 }, 100),
  /** Bitcoin network of the deployment (address prefix `bc1`, `tb1`, `bcrt1`). Default from STAGE: prod mainnet, local local, else testnet. */
  BTC_NETWORK: optionalOneOf(BTC_NETWORKS),
  /**
   * Bitcoin withdrawals (shared/usecases/withdrawals/btc-batch.ts): the most outputs in the one transaction of a batcher
   * pass; a batch still unconfirmed this many blocks after its signature is replaced at a higher fee (BIP125, the same
   * coins); the fee rate is the API's estimate for confirmation within `BTC_FEE_TARGET_BLOCKS`.
   */
  BTC_BATCH_MAX_OUTPUTS: int({ min: 1, max: 2000 }, 250),
  BTC_REPLACE_AFTER_BLOCKS: int({ min: 1 }, 3),
  BTC_FEE_TARGET_BLOCKS: int({ min: 1, max: 1008 }, 3),
  /** Solana: a JSON-RPC endpoint (shared/chain/solana/rpc.ts); Solana is off without it. The USDT mint is `USDTSOL` in TOKEN_CONTRACTS. */
  SOLANA_RPC_URL: optionalUrl(),
  /**
   * Solana: the platform's Ed25519 KMS key (`ECC_NIST_EDWARDS25519`) that pays the fees (and the recipients' token
   * account rent) of custody's SOL withdrawals; they are not sent without it.
   */
  SOLANA_FEE_PAYER_KEY_ID: optionalText(),
  /** Custody sync (`POST /custody/accounts/{id}/sync`): how many blocks back an EVM or TRON address's transfers are read. */
  CUSTODY_SYNC_LOOKBACK_BLOCKS: int({ min: 1, max: 10_000_000 }, 50_000),
  /** Custody sync: blocks per `eth_getLogs` (providers cap the range; 5,000 suits most). */
  CUSTODY_SYNC_LOG_RANGE_BLOCKS: int({ min: 1, max: 1_000_000 }, 5_000),
  /** Custody on Solana: seconds between two polls of every SOL address by the custody-solana worker. */
  CUSTODY_SOLANA_POLL_SECONDS: decimalNumber({ min: 0.1, max: 60 }, 5),
  /** Payments: confirmations override (default: the catalogue's; locally at most 2). */
  PAYMENT_CONFIRMATIONS: optionalInt({ min: 1 }),
  /** Hosted checkout: requests per minute one client address may make to the page and its status endpoint (per Lambda instance). */
  CHECKOUT_REQUESTS_PER_MINUTE: int({ min: 1, max: 100_000 }, 120),
  /** Underpayment tolerance, percent of the amount ("0.5" accepts 99.5 %). */
  PAYMENT_UNDERPAY_TOLERANCE_PERCENT: decimal('0'),
  /** Hours after expiry during which a deposit is still recorded and credited (paid late). */
  PAYMENT_LATE_WATCH_HOURS: int({ min: 0 }, 24),
  /**
   * How sweeps are sent: `engine` through the chain-tx engine (nonce manager, persisted signed bytes, fee
   * bumps; the chain workers sign), `direct` by the scanner calling the factory itself. Default: `engine`,
   * except on the local stack.
   */
  PAYMENT_SWEEPS: optionalOneOf(['engine', 'direct']),
  /** KMS key (ECC_SECG_P256K1) of the hot wallet that signs sweeps and withdrawals. */
  HOT_WALLET_KEY_ID: optionalText(),
  /**
   * The hot wallet's batch payout contract (contracts/BatchPayout.sol; the same address on every EVM network). When
   * set, the withdrawal batcher pays pending ERC-20 withdrawals of one token and network in one `payout` call, once
   * the hot wallet's approval of the contract for that token (requested by the batcher itself) is confirmed.
   */
  WITHDRAWAL_BATCH_CONTRACT: optionalMatching(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address'),
  /**
   * The subscription collector charged by the hot wallet (contracts/SubscriptionCollector.sol; the same address on
   * every EVM network, deployed by `deploySubscriptionCollector` with the hot wallet's address). Pull subscriptions
   * are offered where it is set: their `setup` names it, subscribers approve it, and each period's charges go out
   * in `chargeBatch` calls signed by the hot wallet.
   */
  SUBSCRIPTION_COLLECTOR_CONTRACT: optionalMatching(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address'),
  /** The most withdrawals in one batch payout (the contract takes up to 256). */
  WITHDRAWAL_BATCH_MAX_ITEMS: int({ min: 2, max: 256 }, 50),
  /**
   * The most deposits one sweep takes: a scanner pass sweeps the payments of a currency it finds confirmed with one
   * factory call per this many (a chain-tx request carries up to 256). About 57,000 gas a deposit in a batch.
   */
  SWEEP_BATCH_MAX_SALTS: int({ min: 1, max: 256 }, 50),
  /**
   * The same on TRON, where a sweep burns energy up to TRON_FEE_LIMIT_SUN and reverts past it, fee spent: about
   * 57,000 energy a deposit, so 10 deposits cost about 57 TRX at 100 sun an energy, within the default 100 TRX.
   * Raise the two together.
   */
  TRON_SWEEP_BATCH_MAX_SALTS: int({ min: 1, max: 256 }, 10),
  /**
   * Alarm: minimum native balance of the hot wallet per network, in native units, `{"ETH":"0.05"}`. The
   * follower prints the balance of every followed network, and `HotWalletBelowMinimum` (1) only where a minimum
   * is set and the balance is under it (default `{}`: no minimum, the alarm never fires).
   */
  HOT_WALLET_MIN_BALANCE: jsonRecord(decimalValue, 'must be a JSON object of network to decimal amount, e.g. {"ETH":"0.05"}'),
  /** Alarm: a payment in `sending` (sweep not completed) longer than this many minutes is stuck. */
  SWEEP_STUCK_MINUTES: int({ min: 1 }, 15),
  /** Alarm: a withdrawal in `processing` (transfer not completed) longer than this many minutes is stuck. */
  WITHDRAWAL_STUCK_MINUTES: int({ min: 1 }, 30),
  /**
   * The reconciler (run by the monitor): accepted work (a wallet transfer, an export, a processing withdrawal whose
   * chain result is known) not changed for longer than this many minutes has its message sent again; still not moved
   * as long after a re-drive, it counts as stuck (`AcceptedWorkStuck`). Longer than any consumer's run (exports: 5).
   */
  REDRIVE_AFTER_MINUTES: int({ min: 1 }, 10),
  /**
   * The platform's default tenant limits in USD (spec 2.8 `limits`), applying to every tenant that has no limit
   * of its own (`npm run gateway -- tenant configure ... --max-payment-amount ...`); `none` lifts one.
   */
  DEFAULT_MAX_PAYMENT_AMOUNT: usdLimit('100000.00'),
  DEFAULT_DAILY_PAYMENT_LIMIT: usdLimit('1000000.00'),
  DEFAULT_MAX_WITHDRAWAL_AMOUNT: usdLimit('100000.00'),
  DEFAULT_DAILY_WITHDRAWAL_LIMIT: usdLimit('1000000.00'),
  /** Blocks (the mined one included) before a chain transaction is final. */
  CHAIN_TX_CONFIRMATIONS: int({ min: 1 }, 3),
  /** A broadcast transaction not mined after this many seconds is re-signed with higher fees (same nonce). */
  CHAIN_TX_BUMP_AFTER_SECONDS: int({ min: 1 }, 120),
  /** Fee caps in wei: no transaction is signed above them, bumps included. */
  CHAIN_TX_MAX_FEE_PER_GAS_WEI: bigintDigits('500000000000'),
  CHAIN_TX_MAX_PRIORITY_FEE_WEI: bigintDigits('20000000000'),
  /** The follower retries queued requests idle this long (normally the transfers queue runs them). */
  CHAIN_TX_RETRY_QUEUED_AFTER_SECONDS: int({ min: 0 }, 60),
  /**
   * Transaction exports (shared/runtime/exports.ts): the S3 bucket the export worker writes the files to and the
   * transactions API presigns their downloads from. Unset: no file can be written or offered (the jobs still record).
   */
  EXPORT_BUCKET: optionalText(),
  /** Lifetime of an export's download URL (a presigned GET), in seconds; SigV4 allows at most 7 days. */
  EXPORT_URL_TTL_SECONDS: int({ min: 60, max: 604_800 }, 900),
  /** History records read per page while an export is written. */
  EXPORT_PAGE_SIZE: int({ min: 1, max: 1000 }, 500),
  /**
   * An S3-compatible endpoint in place of AWS's (the local stack's server; the SDK's own variable, read here once so
   * the client knows to address buckets by path: `http://127.0.0.1:port/<bucket>/<key>`).
   */
  AWS_ENDPOINT_URL_S3: optionalUrl(),
} satisfies Record<string, Reader<unknown>>;

type Fields = typeof fields;
type Values = { [K in keyof Fields]: ReturnType<Fields[K]> };
/** Variables that may be unset (their reader may return undefined) are optional keys, as a schema would infer. */
type OptionalKeys = { [K in keyof Values]: undefined extends Values[K] ? K : never }[keyof Values];
type Parsed = { [K in Exclude<keyof Values, OptionalKeys>]: Values[K] } & { [K in OptionalKeys]?: Values[K] };

export type Config = Omit<Parsed, 'BTC_NETWORK'> & {
  readonly isProduction: boolean;
  /** Always set: the configured one, or the stage's default (`btcNetworkOf`). */
  readonly BTC_NETWORK: BtcNetwork;
};

/** The Bitcoin network a stage runs on when `BTC_NETWORK` does not say: prod mainnet, local regtest (`local`), else testnet. */
export function btcNetworkOf(stage: string): Config['BTC_NETWORK'] {
  return stage === 'prod' ? 'mainnet' : stage === 'local' ? 'local' : 'testnet';
}

/** The platform's default tenant limits (see `DEFAULT_MAX_PAYMENT_AMOUNT` and its siblings). */
export function platformLimits(cfg: Config): TenantLimits {
  return {
    daily_payment_limit: cfg.DEFAULT_DAILY_PAYMENT_LIMIT,
    daily_withdrawal_limit: cfg.DEFAULT_DAILY_WITHDRAWAL_LIMIT,
    max_payment_amount: cfg.DEFAULT_MAX_PAYMENT_AMOUNT,
    max_withdrawal_amount: cfg.DEFAULT_MAX_WITHDRAWAL_AMOUNT,
  };
}

let cached: Config | undefined;

/** The configuration an environment describes; throws naming every bad variable. */
export function parseConfig(env: Readonly<Record<string, string | undefined>>): Config {
  const data: Record<string, unknown> = {};
  const refusals: string[] = [];
  for (const [name, read] of Object.entries(fields) as [string, Reader<unknown>][]) {
    try {
      const value = read(env[name]);
      if (value !== undefined) data[name] = value;
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      refusals.push(`${name}: ${error.message}`);
    }
  }
  if (refusals.length > 0) throw new Error(`Invalid configuration: ${refusals.join('; ')}`);
  const parsed = data as Parsed;
  return Object.freeze({ ...parsed, isProduction: parsed.STAGE === 'prod', BTC_NETWORK: parsed.BTC_NETWORK ?? btcNetworkOf(parsed.STAGE) });
}

/** The process's configuration, parsed once (a Lambda's cold start, or the local stack after it set the environment). */
export function config(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}

/** Forget the parsed configuration so the next call reads the environment again (tests, local stack). */
export function resetConfig(): void {
  cached = undefined;
}
