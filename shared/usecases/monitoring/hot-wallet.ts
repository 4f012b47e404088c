import { findNetwork } from '../../domain/currencies.js';
import type { WalletBalanceCheck } from '../../domain/monitoring.js';
import { checkWalletBalance } from '../../domain/monitoring.js';
import type { EmitMetrics } from '../../observability/metrics.js';
import { emitMetrics, METRIC_NAMES, METRIC_NAMESPACES, NETWORK_DIMENSION } from '../../observability/metrics.js';
import { errorField, logger } from '../../observability/logger.js';

/**
 * The hot wallet's native balance per network, once per chain-tx follower invocation: a `hot wallet balance` log
 * line per network (its balance in native units: the dashboard's Logs Insights table and graph read it) and the
 * `HotWalletBelowMinimum` metric, printed only while the balance is below the network's minimum in
 * `HOT_WALLET_MIN_BALANCE` (value 1, one metric across networks: the network is a field of the line, not a
 * dimension). Silence is the good case, as the alarm reads it (missing data not breaching): a custom metric is billed
 * for the hours it is printed, so one printed 0 every minute would cost USD 0.30 a month for nothing. A network
 * without a minimum reports its balance only. The balance is not a metric: one per network would be a custom metric
 * each that no alarm reads.
 *
 * Never throws: a metric must not break the follower. A failure (no key, KMS or RPC down) is logged and the
 * network's values are left out for that minute.
 */

/** The message of the line each network's balance is logged on (the dashboard's query filters on it). */
export const HOT_WALLET_BALANCE_LINE = 'hot wallet balance';

export interface HotWalletDeps {
  /** The hot wallet's address (derived from its KMS key; cache it, it never changes). */
  readonly address: () => Promise<string>;
  /** Native balance in base units (wei). */
  readonly balance: (network: string, address: string) => Promise<bigint>;
  /** Minimum per network in native units, `{"ETH":"0.05"}`. */
  readonly minimums: Readonly<Record<string, string>>;
  readonly emit?: EmitMetrics;
}

export interface HotWalletReading extends WalletBalanceCheck {
  readonly network: string;
  readonly address: string;
}

/** Decimals of a network's native coin (18 for an EVM network the catalogue does not know). */
export function nativeDecimals(network: string): number {
  return findNetwork(network)?.nativeDecimals ?? 18;
}

const logError = (msg: string, fields: Record<string, unknown>, error: unknown): void => {
  logger.error(msg, { ...fields, error: errorField(error) });
};

/**
 * The networks the engine signs on: the KMS key's address is the same 20 bytes on EVM networks and on TRON
 * (base58 there); other families are skipped.
 */
const isSigned = (network: string): boolean => ['evm', 'tron'].includes(findNetwork(network)?.family ?? 'evm');

export async function reportHotWallet(allNetworks: readonly string[], deps: HotWalletDeps): Promise<HotWalletReading[]> {
  const networks = allNetworks.filter(isSigned);
  if (networks.length === 0) return [];
  let address: string;
  try {
    address = await deps.address();
  } catch (error) {
    logError('hot wallet metrics: no address', {}, error);
    return [];
  }
  const emit = deps.emit ?? emitMetrics;
  const readings = await Promise.all(
    networks.map(async (network): Promise<HotWalletReading | null> => {
      try {
        const units = await deps.balance(network, address);
        const check = checkWalletBalance(units, nativeDecimals(network), deps.minimums[network]);
        logger.info(HOT_WALLET_BALANCE_LINE, { network, address, balance: check.balance, balance_value: check.balanceValue, minimum: check.minimum });
        if (check.belowMinimum) {
          emit(METRIC_NAMESPACES.chainTx, { [NETWORK_DIMENSION]: network }, [{ name: METRIC_NAMES.hotWalletBelowMinimum, value: 1, aggregate: true }]);
          logger.warn('hot wallet below minimum', { network, address, balance: check.balance, minimum: check.minimum });
        }
        return { network, address, ...check };
      } catch (error) {
        logError('hot wallet metrics: balance not read', { network, address }, error);
        return null;
      }
    }),
  );
  return readings.filter((r): r is HotWalletReading => r !== null);
}
