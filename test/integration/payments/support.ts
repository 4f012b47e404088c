import { parseConfig } from '../../../shared/config/config.js';
import type { Config } from '../../../shared/config/config.js';
import type { Scope } from '../../../shared/domain/scopes.js';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { CURRENCY_LIST } from '../../../shared/domain/currencies.js';
import type { RateStats } from '../../../shared/domain/rates.js';
import { dynamoRatesStore } from '../../../shared/store/rates.js';
import { clientAuthFrom, issueToken } from '../../../shared/usecases/auth/issue-token.js';
import { createTenant } from '../../../shared/usecases/tenants/create-tenant.js';
import { apiEvent, lambdaContext } from '../../unit/http/event.js';
import { tenantsRuntime } from '../../../shared/runtime/tenants.js';
import { fakeTokenContract } from '../../support/fakes/payments.js';
import { authRuntime } from '../../../shared/runtime/auth.js';

/** Fixed rates so amounts are exact in assertions: USDT/USDC/DAI 1 USD, ETH/WETH 3000 USD, EUR 1.1, GBP 1.25. */
export async function putFixedRates(now = new Date(), usd: Readonly<Record<string, string>> = {}): Promise<void> {
  const stat = (usd: string): RateStats => ({ usd, high24h: usd, low24h: usd, change24h: '0', change24hPercent: '0', volume24h: null, marketCap: null });
  await dynamoRatesStore.putCurrent({
    at: now.toISOString(),
    nextUpdate: new Date(now.getTime() + 60_000).toISOString(),
    source: 'test',
    rates: {
      USDTERC20: stat('1'),
      USDCERC20: stat('1'),
      DAIERC20: stat('1'),
      ETH: stat('3000'),
      WETH: stat('3000'),
      USDTPOLYGON: stat('1'),
      USDTBSC: stat('1'),
      USDTARB: stat('1'),
      USDTTRC20: stat('1'),
      BTC: stat('60000'),
      MATIC: stat('0.5'),
      ...Object.fromEntries(Object.entries(usd).map(([code, rate]) => [code, stat(rate)])),
    },
    fiat: { EUR: '1.1', GBP: '1.25' },
  });
}

/**
 * `TOKEN_CONTRACTS` naming a contract for every catalogue token: the local stage knows none until its stack
 * deploys them, and a token without a contract is not served.
 */
export const EVERY_TOKEN_CONTRACT = JSON.stringify(Object.fromEntries(CURRENCY_LIST.filter((c) => !c.native).map((c) => [c.code, fakeTokenContract(c)])));

/**
 * The configuration of a deployment serving ETH (an endpoint never dialled, a factory, every token's contract) over
 * this process's environment, with `extra` on top.
 */
export const servingEth = (extra: Readonly<Record<string, string>> = {}): Config =>
  parseConfig({
    ...process.env,
    EVM_RPC_URLS: JSON.stringify({ ETH: 'http://127.0.0.1:9/' }),
    FORWARDER_FACTORIES: JSON.stringify({ ETH: '0x1111111111111111111111111111111111111111' }),
    TOKEN_CONTRACTS: EVERY_TOKEN_CONTRACT,
    ...extra,
  });

/** A new tenant and an access token of its first app (with the tenant's scopes; `scopes` narrows both). */
export async function tenantWithToken(name: string, scopes?: readonly Scope[]): Promise<{ tenantId: string; bearer: string }> {
  const made = await createTenant({ name, ...(scopes ? { scopes: [...scopes] } : {}) }, tenantsRuntime());
  const token = await issueToken(
    { grant_type: 'client_credentials' },
    clientAuthFrom(undefined, { client_id: made.clientId, client_secret: made.clientSecret }),
    new Date(),
    authRuntime(),
  );
  return { tenantId: made.tenant.id, bearer: token.access_token };
}

export type Handler = (event: ReturnType<typeof apiEvent>, context: typeof lambdaContext) => Promise<unknown>;

export interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test answers are read loosely
  body: any;
  headers: Record<string, string>;
}

/**
 * Calls `handler` as API Gateway would. `remainingMs` is the time each call's Lambda has (30 s by default): a
 * test that sends many requests at once runs here, in one process, what would be as many Lambdas, each with its
 * own time; such a test gives each call the time the whole burst may take on a loaded machine.
 */
export function caller(handler: Handler, bearer: () => string, { remainingMs }: { readonly remainingMs?: number } = {}) {
  const context = remainingMs === undefined ? lambdaContext : ({ ...lambdaContext, getRemainingTimeInMillis: () => remainingMs } as typeof lambdaContext);
  return async (
    method: string,
    path: string,
    options: { body?: unknown; query?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<Answer> => {
    const headers: Record<string, string> = {
      authorization: `Bearer ${bearer()}`,
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    };
    const res = (await handler(
      apiEvent(method, path, {
        ...(options.body !== undefined ? { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) } : {}),
        headers,
        ...(options.query ? { query: options.query } : {}),
      }),
      context,
    )) as APIGatewayProxyStructuredResultV2 & { body?: string; headers: Record<string, string> };
    return { status: res.statusCode ?? 0, body: res.body ? JSON.parse(res.body) : null, headers: res.headers };
  };
}
