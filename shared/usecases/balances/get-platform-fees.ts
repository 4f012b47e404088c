import type { Decimal } from '../../domain/money.js';
import { FEES, NETWORK_FEES } from '../../domain/ledger.js';
import type { BalancesPorts } from './ports.js';
import { showAmount } from './format.js';

/**
 * `GET /user/fees/` (scope admin): the platform's fee balances per currency, each the sum of the
 * account's shards: platform fees collected, and network fees (charged minus paid on chain).
 */
export interface PlatformFees {
  readonly fees: Record<string, { readonly platform_fees: string; readonly network_fees: string }>;
  readonly currencies_count: number;
}

export async function getPlatformFees(deps: Pick<BalancesPorts, 'ledger'>): Promise<PlatformFees> {
  const [fees, network] = await Promise.all([deps.ledger.platformBalances(FEES), deps.ledger.platformBalances(NETWORK_FEES)]);
  const codes = [...new Set([...Object.keys(fees), ...Object.keys(network)])].sort();
  const out: Record<string, { platform_fees: string; network_fees: string }> = {};
  for (const code of codes) {
    const value = (v: Decimal | undefined) => showAmount(v ?? '0', code);
    out[code] = { platform_fees: value(fees[code]), network_fees: value(network[code]) };
  }
  return { fees: out, currencies_count: codes.length };
}
