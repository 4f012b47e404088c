/** `custody policy|reviews|approve|reject`: the operator's side of custody withdrawals (shared/usecases/custody/review.ts). */
import type { WithdrawalState } from '../../shared/domain/withdrawals.js';
import { custodyRuntime } from '../../shared/runtime/custody.js';
import { decideReview, heldForReview, setReviewPolicy } from '../../shared/usecases/custody/review.js';
import { json, need, str, UsageError } from './command.js';
import type { CommandGroup, Values } from './command.js';

const line = (w: WithdrawalState): string =>
  `${w.id}  tenant ${w.tenantId}  account ${w.custodyAccountId ?? '-'}  ${w.totalDeducted} ${w.currency} -> ${w.address}  ${w.status}${
    w.review ? `  review: ${w.review.decision ?? 'awaiting'} (${w.review.reasons.join(', ')})` : ''
  }`;

const noneOr = <T>(value: string, parse: (v: string) => T): T | null => (value === 'none' ? null : parse(value));

const withdrawalId = (positionals: string[]): string => {
  const id = positionals[0];
  if (!id) throw new UsageError('Name the withdrawal: its id.');
  return id;
};

const by = (values: Values): string => (typeof values.by === 'string' && values.by !== '' ? values.by : 'operator');

export const custodyCommands: CommandGroup = {
  policy: {
    usage: 'custody policy --tenant TENANT_ID --threshold USDT|none [--allowlist "ADDR,ADDR"|none] [--json]',
    summary: "Set a tenant's custody withdrawal review: above the threshold, or to an address outside the allowlist, a withdrawal waits for approve/reject.",
    options: { tenant: str, threshold: str, allowlist: str, json },
    run: (v) =>
      setReviewPolicy(
        {
          tenant_id: need(v, 'tenant'),
          threshold: noneOr(need(v, 'threshold'), (t) => t),
          allowlist:
            typeof v.allowlist === 'string'
              ? noneOr(v.allowlist, (a) =>
                  a
                    .split(',')
                    .map((s) => s.trim())
                    .filter(Boolean),
                )
              : null,
        },
        custodyRuntime(),
      ),
  },
  reviews: {
    usage: 'custody reviews [--json]',
    summary: 'The custody withdrawals waiting for review, every tenant, oldest first.',
    options: { json },
    run: () => heldForReview(custodyRuntime()),
    text: (r) => {
      const held = r as WithdrawalState[];
      return held.length === 0 ? 'nothing waits for review' : held.map(line).join('\n');
    },
  },
  approve: {
    usage: 'custody approve WITHDRAWAL_ID [--by NAME] [--json]',
    summary: 'Approve a withdrawal held for review: the batcher sends it.',
    options: { by: str, json },
    run: (v, positionals) => decideReview(withdrawalId(positionals), { decision: 'approve', by: by(v) }, custodyRuntime()),
    text: (r) => line(r as WithdrawalState),
  },
  reject: {
    usage: 'custody reject WITHDRAWAL_ID --note TEXT [--by NAME] [--json]',
    summary: 'Reject a withdrawal held for review: it ends rejected and its funds return to the account.',
    options: { by: str, note: str, json },
    run: (v, positionals) => decideReview(withdrawalId(positionals), { decision: 'reject', by: by(v), note: need(v, 'note') }, custodyRuntime()),
    text: (r) => line(r as WithdrawalState),
  },
};
