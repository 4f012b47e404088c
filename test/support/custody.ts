import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { custodyAccountRoutes, custodyTransferRoutes } from '../../functions/custody/routes.js';
import { custodySyncRoutes } from '../../functions/custody-sync/routes.js';
import { custodyWithdrawalRoutes } from '../../functions/custody-withdrawals/routes.js';
import { API_FUNCTIONS } from '../../infra/definition.js';
import { compileRoute, Router } from '../../infra/local/http/router.js';
import type { Config } from '../../shared/config/config.js';
import { config } from '../../shared/config/config.js';
import { createApi } from '../../shared/http/pipeline.js';
import { custodyAccountsRuntime } from '../../shared/runtime/custody-accounts.js';
import { custodySyncRuntime } from '../../shared/runtime/custody-sync.js';
import { custodyWithdrawalsRuntime } from '../../shared/runtime/custody-withdrawals.js';

/**
 * The custody group as deployed: each request goes to the Lambda API Gateway would pick by the route keys of
 * infra/definition.ts (selected as infra/local/http/router.ts does), which serves it with its own routes and wiring,
 * as its functions/<name>/handler.ts makes them (here from `cfg`). A route served by the wrong Lambda answers 404.
 */
type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>;

export function custodyApi(cfg: Config = config()): Handler {
  const lambdas: Readonly<Record<string, Handler>> = {
    custody: createApi([...custodyAccountRoutes, ...custodyTransferRoutes], custodyAccountsRuntime(cfg)),
    'custody-sync': createApi(custodySyncRoutes, custodySyncRuntime(cfg)),
    'custody-withdrawals': createApi(custodyWithdrawalRoutes, custodyWithdrawalsRuntime(cfg)),
  };
  const gateway = new Router(API_FUNCTIONS.filter((f) => f.name in lambdas).flatMap((f) => f.routes.map((key) => compileRoute(key, { name: f.name }))));
  return (event, context) => {
    const name = gateway.match(event.requestContext.http.method, event.rawPath)?.route.target.name;
    const lambda = name === undefined ? undefined : lambdas[name];
    if (!lambda) throw new Error(`No custody Lambda is routed ${event.requestContext.http.method} ${event.rawPath}`);
    return lambda(event, context);
  };
}
