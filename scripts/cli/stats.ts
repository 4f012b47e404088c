/** `tenant stats`: the transaction statistics of a period as text, for support work. */
import type { TransactionStats } from '../../shared/domain/transactions.js';

export function statsText(s: TransactionStats): string {
  const lines = [`${s.date_from} .. ${s.date_to}`];
  for (const [type, c] of Object.entries(s.counts)) {
    const statuses = Object.entries(c.by_status).map(([status, n]) => `${status} ${n}`);
    lines.push(`  ${type.padEnd(11)} ${String(c.total).padStart(6)}${statuses.length > 0 ? `  (${statuses.join(', ')})` : ''}`);
  }
  for (const [currency, perType] of Object.entries(s.volume)) {
    const parts = Object.entries(perType).map(([type, v]) => `${type} ${v.amount}`);
    lines.push(`  volume ${currency}: ${parts.join(', ')}; fees ${s.fees[currency] ?? '0'}`);
  }
  lines.push(`  volume USD: ${s.total_volume_usd}`);
  return lines.join('\n');
}
