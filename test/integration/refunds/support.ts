import { API_FUNCTIONS } from '../../../infra/definition.js';
import { compileRoute, Router } from '../../../infra/local/http/router.js';
import type { Config } from '../../../shared/config/config.js';
import { toBaseUnits } from '../../../shared/domain/money.js';
import type { Deposit, PaymentFact, PaymentState } from '../../../shared/domain/payments.js';
import { transition } from '../../../shared/domain/payments.js';
import { dynamoPayments } from '../../../shared/store/payments.js';
import { apiGroupHandlers } from '../../support/api-groups.js';
import type { caller, Handler } from '../payments/support.js';

/** What the refund tests share: the API Lambdas as API Gateway routes to them, and payments that received money. */

/** The API Lambdas `names` over `cfg`, each request handed to the one its route names (infra/definition.ts). */
export function routedApi(cfg: Config, names: readonly string[]): Handler {
  const groups = apiGroupHandlers(cfg) as unknown as Record<string, Handler>;
  const router = new Router(API_FUNCTIONS.filter((f) => names.includes(f.name)).flatMap((f) => f.routes.map((key) => compileRoute(key, { name: f.name }))));
  return (event, context) => {
    const name = router.match(event.requestContext.http.method, event.rawPath)?.route.target.name ?? names[0] ?? 'payments';
    const target = groups[name];
    if (!target) throw new Error(`no handler ${name}`);
    return target(event, context);
  };
}

/** A deposit of `got` USDTERC20 to `p` in block 10 of Ethereum, as the scanner records it. */
export function usdtDeposit(p: PaymentState, got: string, now: Date): Deposit {
  const hex = p.id.replace(/-/g, '');
  return {
    id: `ETH:0x${hex}:0`,
    currency: 'USDTERC20',
    amount: got,
    amountBase: toBaseUnits(got, 6).toString(),
    txHash: `0x${hex}`,
    logIndex: 0,
    blockNumber: 10,
    blockHash: '0xb',
    confirmations: 1,
    detectedAt: now.toISOString(),
    status: 'pending',
    late: false,
  };
}

/**
 * `p` after a deposit of `got` USDTERC20 with its 12 confirmations (`confirmed`: partially paid below the amount),
 * then taken by a sweep (`sending`), then credited by it (`completed`), each saved through the repository.
 */
export async function received(p: PaymentState, got: string, upTo: 'confirmed' | 'sending' | 'completed' = 'completed'): Promise<PaymentState> {
  const now = new Date();
  const deposit = usdtDeposit(p, got, now);
  const facts: PaymentFact[] = [
    { kind: 'deposit', deposit },
    { kind: 'confirmations', byDeposit: { [deposit.id]: 12 }, confirmationsNeeded: 12, tolerancePercent: '0' },
    ...(upTo === 'confirmed' ? [] : [{ kind: 'sweep_started' } as const]),
    ...(upTo === 'completed' ? [{ kind: 'sweep_completed', txHash: '0xsweep', usdRate: '1' } as const] : []),
  ];
  let s = p;
  for (const fact of facts) s = await dynamoPayments.save(s, transition(s, fact, now), now);
  return s;
}

export interface Merchant {
  readonly tenantId: string;
  readonly call: ReturnType<typeof caller>;
}

/** A 100 USDTERC20 payment of `who` (1 % fee, the merchant's), made through the API, that received `got`. */
export async function paymentOf(
  who: Merchant,
  got: string,
  upTo: Parameters<typeof received>[2] = 'completed',
  body: Record<string, unknown> = {},
): Promise<PaymentState> {
  const res = await who.call('POST', '/payments/', { body: { amount: '100', currency: 'USDTERC20', ...body } });
  if (res.status !== 201) throw new Error(`payment refused: ${res.status} ${JSON.stringify(res.body)}`);
  return received((await dynamoPayments.get(who.tenantId, res.body.transaction_id as string)) as PaymentState, got, upTo);
}

/** A 100 USDTERC20 payment of `who` that received `got` and completed: credited `got - 1`. */
export async function paid(who: Merchant, got: string, body: Record<string, unknown> = {}): Promise<PaymentState> {
  const p = await paymentOf(who, got, 'completed', body);
  if (p.status !== 'completed') throw new Error(`payment ${p.id} is ${p.status}`);
  return p;
}
