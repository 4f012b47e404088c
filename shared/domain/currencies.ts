import type { BtcNetwork } from './bitcoin.js';
import type { Decimal } from './money.js';
import { displayPrecision } from './money.js';

/**
 * The catalogue: every currency and network the gateway knows, as data. Code reads it through the lookups
 * at the bottom; nothing else spells a currency's decimals, contract or limits.
 *
 * Contract addresses are per environment: `mainnet` (production), `testnet` (staging; filled by
 * configuration, no address is guessed) and `local` (the embedded stack deploys its own test tokens and
 * passes their addresses at run time). `TOKEN_CONTRACTS` in the configuration overrides any of them
 * (shared/runtime/currencies.ts), so no environment needs a code change.
 */

export const CHAIN_FAMILIES = ['evm', 'tron', 'btc', 'sol'] as const;
export type ChainFamily = (typeof CHAIN_FAMILIES)[number];

export const CONTRACT_ENVIRONMENTS = ['mainnet', 'testnet', 'local'] as const;
export type ContractEnvironment = (typeof CONTRACT_ENVIRONMENTS)[number];

export const NETWORK_CODES = ['ETH', 'POLYGON', 'BSC', 'ARB', 'BASE', 'OPTIMISM', 'TRX', 'BTC', 'SOL'] as const;
export type NetworkCode = (typeof NETWORK_CODES)[number];

export interface NetworkDefinition {
  readonly code: NetworkCode;
  readonly name: string;
  readonly family: ChainFamily;
  /**
   * EVM chain id per environment; null where the family has none. The local stack runs one anvil per EVM network
   * with the network's mainnet id, so a transaction signed for one local chain is never valid on another.
   */
  readonly chainId: Readonly<Record<ContractEnvironment, number | null>>;
  /** Average block time in milliseconds (the scanner's pacing). */
  readonly blockTimeMs: number;
  /** Currency code of the native coin that pays fees on this network. */
  readonly nativeCurrency: string;
  /** Decimals of that coin's base unit (wei 18, sun 6, satoshi 8): not every native coin is a catalogue currency. */
  readonly nativeDecimals: number;
  /** Names a client may send for this network (case-insensitive), besides the code itself. */
  readonly aliases: readonly string[];
}

export const NETWORKS: Readonly<Record<NetworkCode, NetworkDefinition>> = {
  ETH: {
    code: 'ETH',
    name: 'Ethereum',
    family: 'evm',
    chainId: { mainnet: 1, testnet: 11155111, local: 1 },
    blockTimeMs: 12_000,
    nativeCurrency: 'ETH',
    nativeDecimals: 18,
    aliases: ['ETHEREUM', 'ERC20'],
  },
  POLYGON: {
    code: 'POLYGON',
    name: 'Polygon PoS',
    family: 'evm',
    chainId: { mainnet: 137, testnet: 80002, local: 137 },
    blockTimeMs: 2_000,
    nativeCurrency: 'MATIC',
    nativeDecimals: 18,
    aliases: ['MATIC'],
  },
  BSC: {
    code: 'BSC',
    name: 'BNB Smart Chain',
    family: 'evm',
    chainId: { mainnet: 56, testnet: 97, local: 56 },
    blockTimeMs: 3_000,
    nativeCurrency: 'BNB',
    nativeDecimals: 18,
    aliases: ['BEP20', 'BNB'],
  },
  ARB: {
    code: 'ARB',
    name: 'Arbitrum One',
    family: 'evm',
    chainId: { mainnet: 42161, testnet: 421614, local: 42161 },
    blockTimeMs: 250,
    nativeCurrency: 'ETH',
    nativeDecimals: 18,
    aliases: ['ARBITRUM'],
  },
  BASE: {
    code: 'BASE',
    name: 'Base',
    family: 'evm',
    chainId: { mainnet: 8453, testnet: 84532, local: 8453 },
    blockTimeMs: 2_000,
    nativeCurrency: 'ETH',
    nativeDecimals: 18,
    aliases: [],
  },
  OPTIMISM: {
    code: 'OPTIMISM',
    name: 'OP Mainnet',
    family: 'evm',
    chainId: { mainnet: 10, testnet: 11155420, local: 10 },
    blockTimeMs: 2_000,
    nativeCurrency: 'ETH',
    nativeDecimals: 18,
    aliases: ['OP'],
  },
  TRX: {
    code: 'TRX',
    name: 'TRON',
    family: 'tron',
    chainId: { mainnet: null, testnet: null, local: null },
    blockTimeMs: 3_000,
    nativeCurrency: 'TRX',
    nativeDecimals: 6,
    aliases: ['TRON', 'TRC20'],
  },
  BTC: {
    code: 'BTC',
    name: 'Bitcoin',
    family: 'btc',
    chainId: { mainnet: null, testnet: null, local: null },
    blockTimeMs: 600_000,
    nativeCurrency: 'BTC',
    nativeDecimals: 8,
    aliases: ['BITCOIN'],
  },
  // Solana (shared/chain/solana): a slot every 400 ms; USDT is an SPL token held in associated token accounts.
  SOL: {
    code: 'SOL',
    name: 'Solana',
    family: 'sol',
    chainId: { mainnet: null, testnet: null, local: null },
    blockTimeMs: 400,
    nativeCurrency: 'SOL',
    nativeDecimals: 9,
    aliases: ['SOLANA', 'SPL'],
  },
};

export const CURRENCY_CODES = [
  'USDTERC20',
  'USDCERC20',
  'DAIERC20',
  'USDTTRC20',
  'USDTPOLYGON',
  'USDTBSC',
  'USDTARB',
  'ETH',
  'WETH',
  'BTC',
  'MATIC',
  'USDTSOL',
] as const;
export type CurrencyCode = (typeof CURRENCY_CODES)[number];

/** The asset whose market price a currency has (USDT on every network has the price of USDT). */
export const PRICE_ASSETS = ['USDT', 'USDC', 'DAI', 'ETH', 'WETH', 'BTC', 'MATIC'] as const;
export type PriceAsset = (typeof PRICE_ASSETS)[number];

export const FIAT_CODES = ['USD', 'EUR', 'GBP'] as const;
export type FiatCode = (typeof FIAT_CODES)[number];

export interface CurrencyDefinition {
  readonly code: CurrencyCode;
  readonly name: string;
  /** Token symbol, e.g. `USDT`. */
  readonly token: string;
  readonly network: NetworkCode;
  readonly family: ChainFamily;
  readonly asset: PriceAsset;
  /** Native coin of its network (no contract). */
  readonly native: boolean;
  readonly contracts: Readonly<Record<ContractEnvironment, string | null>>;
  readonly decimals: number;
  /** min(decimals, 8): an amount shown to a customer is exactly payable on chain. */
  readonly displayPrecision: number;
  readonly isStable: boolean;
  readonly isPopular: boolean;
  /** Payment amount bounds, in the currency. */
  readonly minAmount: Decimal;
  readonly maxAmount: Decimal;
  /** Smallest withdrawal, in the currency. */
  readonly minWithdrawal: Decimal;
  /** Smallest platform fee on a withdrawal or payment, in the currency. */
  readonly minFee: Decimal;
  /** Confirmations before a deposit counts. */
  readonly confirmations: number;
  readonly enabled: { readonly payments: boolean; readonly withdrawals: boolean };
}

type Definition = Omit<CurrencyDefinition, 'family' | 'displayPrecision' | 'native'>;

const none = { mainnet: null, testnet: null, local: null } as const;
const contracts = (mainnet: string) => ({ mainnet, testnet: null, local: null });

/**
 * Stablecoin bounds per network. Withdrawal minimums are the interface's typical chain minimums (section 8);
 * on Ethereum payments start at 10 as well, because sweeping a smaller deposit costs more gas than it is worth.
 */
const stable = (minAmount: Decimal, minWithdrawal: Decimal) => ({
  isStable: true,
  minAmount,
  maxAmount: '1000000',
  minWithdrawal,
  minFee: '0.1',
});

const DEFINITIONS: readonly Definition[] = [
  {
    code: 'USDTERC20',
    name: 'Tether USD (ERC-20)',
    token: 'USDT',
    network: 'ETH',
    asset: 'USDT',
    contracts: contracts('0xdAC17F958D2ee523a2206206994597C13D831ec7'),
    decimals: 6,
    isPopular: true,
    ...stable('10', '10'),
    confirmations: 12,
    enabled: { payments: true, withdrawals: true },
  },
  {
    code: 'USDCERC20',
    name: 'USD Coin (ERC-20)',
    token: 'USDC',
    network: 'ETH',
    asset: 'USDC',
    contracts: contracts('0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'),
    decimals: 6,
    isPopular: true,
    ...stable('10', '10'),
    confirmations: 12,
    enabled: { payments: true, withdrawals: true },
  },
  {
    code: 'DAIERC20',
    name: 'Dai (ERC-20)',
    token: 'DAI',
    network: 'ETH',
    asset: 'DAI',
    contracts: contracts('0x6B175474E89094C44Da98b954EedeAC495271d0F'),
    decimals: 18,
    isPopular: false,
    ...stable('10', '10'),
    confirmations: 12,
    enabled: { payments: true, withdrawals: true },
  },
  {
    code: 'USDTTRC20',
    name: 'Tether USD (TRC-20)',
    token: 'USDT',
    network: 'TRX',
    asset: 'USDT',
    contracts: contracts('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'),
    decimals: 6,
    isPopular: true,
    ...stable('1', '1'),
    confirmations: 19,
    enabled: { payments: true, withdrawals: true },
  },
  {
    code: 'USDTPOLYGON',
    name: 'Tether USD (Polygon)',
    token: 'USDT',
    network: 'POLYGON',
    asset: 'USDT',
    contracts: contracts('0xc2132D05D31c914a87C6611C10748AEb04B58e8F'),
    decimals: 6,
    isPopular: false,
    ...stable('1', '1'),
    confirmations: 64,
    enabled: { payments: true, withdrawals: true },
  },
  {
    code: 'USDTBSC',
    name: 'Tether USD (BEP-20)',
    token: 'USDT',
    network: 'BSC',
    asset: 'USDT',
    contracts: contracts('0x55d398326f99059fF775485246999027B3197955'),
    decimals: 18,
    isPopular: true,
    ...stable('1', '5'),
    confirmations: 15,
    enabled: { payments: true, withdrawals: true },
  },
  {
    code: 'USDTARB',
    name: 'Tether USD (Arbitrum)',
    token: 'USDT',
    network: 'ARB',
    asset: 'USDT',
    contracts: contracts('0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9'),
    decimals: 6,
    isPopular: false,
    ...stable('1', '5'),
    confirmations: 20,
    enabled: { payments: true, withdrawals: true },
  },
  {
    code: 'ETH',
    name: 'Ether',
    token: 'ETH',
    network: 'ETH',
    asset: 'ETH',
    contracts: none,
    decimals: 18,
    isStable: false,
    isPopular: true,
    minAmount: '0.001',
    maxAmount: '500',
    minWithdrawal: '0.005',
    minFee: '0.00005',
    confirmations: 12,
    enabled: { payments: true, withdrawals: true },
  },
  {
    code: 'WETH',
    name: 'Wrapped Ether (ERC-20)',
    token: 'WETH',
    network: 'ETH',
    asset: 'WETH',
    contracts: contracts('0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'),
    decimals: 18,
    isStable: false,
    isPopular: false,
    minAmount: '0.001',
    maxAmount: '500',
    minWithdrawal: '0.005',
    minFee: '0.00005',
    confirmations: 12,
    enabled: { payments: true, withdrawals: true },
  },
  // BTC (DESIGN section 12): payments to P2WSH deposit addresses over the hot wallet's KMS key, watched through an
  // Esplora-compatible API; withdrawals batched into one transaction per batcher run. Served where configured
  // (shared/runtime/currencies.ts servedNetworks: BTC_API_URL and HOT_WALLET_KEY_ID).
  {
    code: 'BTC',
    name: 'Bitcoin',
    token: 'BTC',
    network: 'BTC',
    asset: 'BTC',
    contracts: none,
    decimals: 8,
    isStable: false,
    isPopular: true,
    minAmount: '0.0001',
    maxAmount: '50',
    minWithdrawal: '0.0005',
    minFee: '0.000002',
    confirmations: 2,
    enabled: { payments: true, withdrawals: true },
  },
  {
    code: 'MATIC',
    name: 'Polygon (MATIC)',
    token: 'MATIC',
    network: 'POLYGON',
    asset: 'MATIC',
    contracts: none,
    decimals: 18,
    isStable: false,
    isPopular: false,
    minAmount: '1',
    maxAmount: '2000000',
    minWithdrawal: '1',
    minFee: '0.1',
    confirmations: 64,
    enabled: { payments: true, withdrawals: true },
  },
  // USDT on Solana (the SPL mint; the local stack passes its own through TOKEN_CONTRACTS). Custody holds it; payments
  // and withdrawals stay off until their Solana wiring exists. 32 confirmations: a block is finalized (rooted) about
  // 32 slots deep; Solana callers read `confirmationStatus: 'finalized'` rather than count.
  {
    code: 'USDTSOL',
    name: 'Tether USD (Solana)',
    token: 'USDT',
    network: 'SOL',
    asset: 'USDT',
    contracts: contracts('Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB'),
    decimals: 6,
    isPopular: false,
    ...stable('1', '1'),
    confirmations: 32,
    enabled: { payments: false, withdrawals: false },
  },
];

export const CURRENCIES: Readonly<Record<CurrencyCode, CurrencyDefinition>> = Object.freeze(
  Object.fromEntries(
    DEFINITIONS.map((d) => [
      d.code,
      Object.freeze({
        ...d,
        family: NETWORKS[d.network].family,
        native: d.contracts.mainnet === null,
        displayPrecision: displayPrecision(d.decimals),
      }),
    ]),
  ) as Record<CurrencyCode, CurrencyDefinition>,
);

/** Catalogue order (the order of CURRENCY_CODES). */
export const CURRENCY_LIST: readonly CurrencyDefinition[] = CURRENCY_CODES.map((code) => CURRENCIES[code]);

export function isCurrencyCode(value: string): value is CurrencyCode {
  return (CURRENCY_CODES as readonly string[]).includes(value);
}

export function isFiatCode(value: string): value is FiatCode {
  return (FIAT_CODES as readonly string[]).includes(value);
}

/** The currency with this exact (case-sensitive) code, or undefined. */
export function findCurrency(code: string): CurrencyDefinition | undefined {
  return isCurrencyCode(code) ? CURRENCIES[code] : undefined;
}

/** A network by code or alias, case-insensitive (`tron` and `TRX` are the same chain). */
export function findNetwork(name: string): NetworkDefinition | undefined {
  const upper = name.trim().toUpperCase();
  return Object.values(NETWORKS).find((n) => n.code === upper || n.aliases.includes(upper));
}

/** The currency a (blockchain, token) pair names: (`TRON`, `USDT`) is USDTTRC20, (`ETH`, `ETH`) is ETH. */
export function findCurrencyByToken(blockchain: string, token: string): CurrencyDefinition | undefined {
  const network = findNetwork(blockchain);
  if (!network) return undefined;
  const symbol = token.trim().toUpperCase();
  return CURRENCY_LIST.find((c) => c.network === network.code && c.token === symbol);
}

/**
 * The currency a client means on one network when it names no token, among `candidates` (the currencies of that
 * network a deployment serves): USDT, the interface's default, where it is one; else the network's native coin; else
 * the first candidate. Undefined when there is no candidate: nothing is served there.
 */
export function defaultCurrency(candidates: readonly CurrencyDefinition[]): CurrencyDefinition | undefined {
  return candidates.find((c) => c.token === 'USDT') ?? candidates.find((c) => c.native) ?? candidates[0];
}

/**
 * A currency is active when enabled for payments or withdrawals and not switched off by configuration
 * (`disabled`, e.g. from `DISABLED_CURRENCIES`).
 */
export function isActive(currency: CurrencyDefinition, disabled: ReadonlySet<string> = new Set()): boolean {
  return !disabled.has(currency.code) && (currency.enabled.payments || currency.enabled.withdrawals);
}

export function activeCurrencies(disabled: ReadonlySet<string> = new Set()): CurrencyDefinition[] {
  return CURRENCY_LIST.filter((c) => isActive(c, disabled));
}

/** What a deployment does with a currency: take payments in it, or send withdrawals of it. */
export type CurrencyService = 'payments' | 'withdrawals';

/**
 * What this deployment can serve, from its configuration (shared/runtime/currencies.ts `servedNetworks`): the
 * networks where it takes payments (deposit addresses and a chain to scan), the networks where it sends
 * withdrawals (a chain to send on and a key to sign with), and the tokens whose contract it knows. A currency
 * outside them is neither offered nor accepted, so nothing is ever accepted and left waiting.
 */
export interface ServedNetworks {
  readonly payments: ReadonlySet<NetworkCode>;
  readonly withdrawals: ReadonlySet<NetworkCode>;
  /** Token currencies with a contract address in this deployment (a native coin needs none). */
  readonly tokens: ReadonlySet<CurrencyCode>;
  /** The Bitcoin network whose addresses it pays and makes (`BTC_NETWORK`); unset, a Bitcoin address of any network passes. */
  readonly btcNetwork?: BtcNetwork;
}

/** Whether this deployment serves `currency` for `service` (its network served, its contract known, enabled for it). */
function isServedFor(currency: CurrencyDefinition, service: CurrencyService, served: ServedNetworks): boolean {
  return currency.enabled[service] && served[service].has(currency.network) && (currency.native || served.tokens.has(currency.code));
}

/** The catalogue's currencies this deployment serves for `service`, in catalogue order, without the `disabled` ones. */
export function servedCurrencies(service: CurrencyService, served: ServedNetworks, disabled: ReadonlySet<string> = new Set()): CurrencyDefinition[] {
  return CURRENCY_LIST.filter((c) => !disabled.has(c.code) && isServedFor(c, service, served));
}

/**
 * The currencies this deployment offers, in catalogue order: those it takes payments in or sends withdrawals of
 * (`GET /rates/` lists exactly these). A currency enabled in the catalogue on a network this deployment does not
 * reach (BTC without `BTC_API_URL`, an EVM network without its RPC URL) is not offered.
 */
export function offeredCurrencies(served: ServedNetworks, disabled: ReadonlySet<string> = new Set()): CurrencyDefinition[] {
  return CURRENCY_LIST.filter((c) => !disabled.has(c.code) && (isServedFor(c, 'payments', served) || isServedFor(c, 'withdrawals', served)));
}

/**
 * The currencies the gateway values in USD: every catalogue currency, on every network, that it may hold (a payment,
 * a main or wallet balance, a custody balance such as USDT on Solana), less those switched off by configuration.
 * The rates-refresher prices exactly these and the current-rates read keeps exactly these, so a rate stored is a
 * rate read.
 */
export function valuedCurrencies(disabled: ReadonlySet<string> = new Set()): CurrencyDefinition[] {
  return CURRENCY_LIST.filter((c) => !disabled.has(c.code));
}

/**
 * The smallest withdrawal of a currency, in the currency: what `POST /withdrawal/` and the estimate refuse below, and
 * what every answer showing a withdrawal minimum shows (min-amount, fee estimate, limits, available currencies,
 * `GET /currencies/?withdrawal=true&min_max=true`).
 */
export function withdrawalMinimum(currency: CurrencyDefinition): Decimal {
  return currency.minWithdrawal;
}

/** The environment whose contracts a stage uses: `local` for the embedded stack, `mainnet` in production. */
export function contractEnvironmentFor(stage: string): ContractEnvironment {
  if (stage === 'local') return 'local';
  return stage === 'prod' ? 'mainnet' : 'testnet';
}

/**
 * The token contract of a currency in an environment; `overrides` (code -> address) win. Null for a native
 * coin or when no address is known for the environment.
 */
export function contractAddress(
  currency: CurrencyDefinition,
  environment: ContractEnvironment,
  overrides: Readonly<Record<string, string>> = {},
): string | null {
  if (currency.native) return null;
  return overrides[currency.code] ?? currency.contracts[environment];
}

/** The lowercase `blockchain` of the currency record (2.4): the network code, e.g. `trx`. */
export function blockchainLabel(currency: CurrencyDefinition): string {
  return currency.network.toLowerCase();
}
