/** `refund list|show|cancel`: a tenant's refunds, for support work; cancel runs the API's use case. */
import type { RefundState } from '../../shared/domain/refunds.js';
import { refundsRuntime } from '../../shared/runtime/refunds.js';
import type { RefundsDeps } from '../../shared/usecases/refunds/ports.js';
import { refundRecord } from '../../shared/usecases/refunds/present.js';
import { cancelRefund, requireRefund } from '../../shared/usecases/refunds/refunds.js';
import { listTenantRefunds } from '../../shared/usecases/refunds/tenant-refunds.js';
import { intOpt, json, need, str, UsageError } from './command.js';
import type { CommandGroup } from './command.js';

type Shown = ReturnType<typeof refundRecord>;

/** Claim links on the deployment's public base URL; without one configured, the path on the API's host. */
const shown =
  (deps: RefundsDeps) =>
  (r: RefundState): Shown =>
    refundRecord(r, deps.settings.publicBaseUrl ?? '');

const line = (r: Shown): string => `${r.id}  ${r.status.padEnd(16)}  ${r.amount} ${r.currency}  payment ${r.payment_id}  ${r.created_at}`;

const details = (r: Shown): string =>
  [
    line(r),
    ...Object.entries({
      network_fee: r.network_fee,
      amount_sent: r.amount_sent,
      address: r.address,
      claim_url: r.claim_url,
      claim_expires_at: r.claim_expires_at,
      transaction_hash: r.transaction_hash,
      reason: r.reason,
      updated_at: r.updated_at,
    })
      .filter(([, value]) => value !== null)
      .map(([name, value]) => `    ${name.padEnd(16)} ${value}`),
  ].join('\n');

const refundId = (positionals: string[]): string => {
  const id = positionals[0];
  if (!id) throw new UsageError('Name the refund: its id.');
  return id;
};

export const refundCommands: CommandGroup = {
  list: {
    usage: 'refund list --tenant TENANT_ID [--status STATUS] [--payment PAYMENT_ID] [--limit N] [--cursor C] [--json]',
    summary: "A tenant's refunds, newest first (default 50; --cursor continues where a page ended).",
    options: { tenant: str, status: str, payment: str, limit: str, cursor: str, json },
    run: async (v) => {
      const opt = (name: string) => (typeof v[name] === 'string' ? (v[name] as string) : undefined);
      const deps = refundsRuntime();
      const page = await listTenantRefunds(
        need(v, 'tenant'),
        { status: opt('status'), payment_id: opt('payment'), limit: intOpt(v, 'limit'), cursor: opt('cursor') },
        deps,
      );
      return { results: page.refunds.map(shown(deps)), cursor: page.cursor };
    },
    text: (r) => {
      const page = r as { results: Shown[]; cursor: string | null };
      const lines = page.results.length === 0 ? ['no refunds'] : page.results.map(line);
      return [...lines, ...(page.cursor ? [`more: --cursor ${page.cursor}`] : [])].join('\n');
    },
  },
  show: {
    usage: 'refund show --tenant TENANT_ID REFUND_ID [--json]',
    summary: 'One refund of a tenant.',
    options: { tenant: str, json },
    run: async (v, positionals) => {
      const deps = refundsRuntime();
      return shown(deps)(await requireRefund(need(v, 'tenant'), refundId(positionals), deps));
    },
    text: (r) => details(r as Shown),
  },
  cancel: {
    usage: 'refund cancel --tenant TENANT_ID REFUND_ID [--json]',
    summary: 'Cancel a refund as POST /refunds/{id}/cancel/ does: until it is processing; its hold is released and the amount is refundable again.',
    options: { tenant: str, json },
    run: async (v, positionals) => {
      const deps = refundsRuntime();
      return shown(deps)(await cancelRefund(need(v, 'tenant'), refundId(positionals), new Date(), deps));
    },
    text: (r) => details(r as Shown),
  },
};
