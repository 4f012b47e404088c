import { CfnStage, HttpApi, HttpMethod, HttpRoute, HttpRouteKey } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { RouteKey } from '../../definition.js';
import { acknowledge } from '../acknowledge.js';

/** The HTTP API's stage: the default one (createDefaultStage stays on). */
export const API_STAGE = '$default';

/** Requests per second (steady rate) and burst a stage or route accepts before answering 429. */
export interface Throttle {
  readonly rate: number;
  readonly burst: number;
}

/** Every route of the stage, unless it has its own below (the account's regional limit is 10,000/5,000). */
export const STAGE_THROTTLE: Throttle = { rate: 500, burst: 1000 };
/**
 * Tighter limits for the routes anyone can reach without a token: the OAuth token endpoint (client secrets are
 * guessed there), the hosted checkout, the refund claim page and the payment link page (public links). Keyed by the owning API function's
 * name in infra/definition.ts; each of its route keys gets the limit.
 */
export const ROUTE_THROTTLES: Readonly<Record<string, Throttle>> = {
  auth: { rate: 20, burst: 40 },
  checkout: { rate: 100, burst: 200 },
  'refund-claims': { rate: 20, burst: 40 },
  'payment-link-pages': { rate: 20, burst: 40 },
};

/**
 * One JSON object per request in the access log. No authorizer runs (OAuth tokens are checked in the handlers'
 * pipeline), so the stage knows no tenant: `$context.authorizer` is empty and not logged; the handlers' own log
 * lines carry the tenant, and the request id joins the two.
 */
export const ACCESS_LOG_FORMAT: Readonly<Record<string, string>> = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTimeEpoch',
  routeKey: '$context.routeKey',
  method: '$context.httpMethod',
  path: '$context.path',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  latency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationStatus: '$context.integrationStatus',
  integrationError: '$context.integrationErrorMessage',
  error: '$context.error.message',
  sourceIp: '$context.identity.sourceIp',
  domainName: '$context.domainName',
};

/** Why no API Gateway authorizer guards a route, by the kind of route (see `addRoutes`). */
export type RouteAccess = 'oauth' | 'token-endpoint' | 'public' | 'fallback';

const AUTHORIZER_REASONS: Record<RouteAccess, string> = {
  oauth:
    "OAuth 2.0 client-credentials tokens are checked in the handler's pipeline, not by an API Gateway authorizer: the tokens are the gateway's own (table-backed and revocable at once, which a cached authorizer answer would not honour), and the scopes a request needs are per route and method inside the group the route key covers.",
  'token-endpoint':
    'The OAuth token endpoint group: clients authenticate here with their client credentials to obtain a token, so no token can be required in front of it; it has the tightest throttle of the stage.',
  public:
    'A public page payers open from a link without any credentials (the hosted checkout, the refund claim page): the unguessable identifier in the path is the capability; it has a tighter throttle than the stage.',
  fallback: 'The catch-all route answers 404 in the error envelope to anything unrouted: there is nothing to authorize.',
};

/** `ANY /o/{proxy+}` -> an HttpRouteKey; `$default` -> the catch-all route. */
export function parseRouteKey(key: RouteKey): HttpRouteKey {
  if (key === '$default') return HttpRouteKey.DEFAULT;
  const match = /^([A-Z]+) (\/\S*)$/.exec(key);
  const method = match?.[1];
  const path = match?.[2];
  if (!method || !path || !(Object.values(HttpMethod) as string[]).includes(method)) {
    throw new Error(`Invalid route key "${key}"`);
  }
  return HttpRouteKey.with(path, method as HttpMethod);
}

export interface GatewayHttpApiProps {
  readonly stage: string;
}

/** The HTTP API: each endpoint group's Lambda receives its route keys and routes on method + rawPath itself. */
export class GatewayHttpApi extends Construct {
  readonly api: HttpApi;
  /** The stage's access log: one JSON line per request (ACCESS_LOG_FORMAT). */
  readonly accessLogs: LogGroup;
  /** `RouteSettings` of the stage, as CloudFormation spells them (the L1 property is plain JSON). */
  private readonly routeSettings: Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }> = {};
  private readonly routeOwners = new Map<string, string>();

  constructor(scope: Construct, id: string, props: GatewayHttpApiProps) {
    super(scope, id);
    // The $default route is added like any other (not via `defaultIntegration`): the functions read the
    // API's URL from their environment, so the API must exist before them.
    this.api = new HttpApi(this, 'HttpApi', {
      apiName: `payment-gateway-${props.stage}`,
      description: `Payment gateway (${props.stage})`,
    });
    this.accessLogs = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.ONE_YEAR });
    this.stage.accessLogSettings = { destinationArn: this.accessLogs.logGroupArn, format: JSON.stringify(ACCESS_LOG_FORMAT) };
    this.stage.defaultRouteSettings = {
      throttlingRateLimit: STAGE_THROTTLE.rate,
      throttlingBurstLimit: STAGE_THROTTLE.burst,
    };
  }

  /** The default stage (`$default`) as CloudFormation sees it: its logging and throttling are set there. */
  get stage(): CfnStage {
    const stage = this.api.defaultStage?.node.defaultChild;
    if (!(stage instanceof CfnStage)) throw new Error('The HTTP API has no default stage');
    return stage;
  }

  /**
   * Routes each key to `handler`. A key claimed twice is an error, not a silent override. `access` says why no
   * API Gateway authorizer guards the routes (acknowledged on each route); ROUTE_THROTTLES[owner] limits them.
   */
  addRoutes(owner: string, handler: IFunction, keys: readonly RouteKey[], access: RouteAccess = 'oauth'): void {
    const throttle = ROUTE_THROTTLES[owner];
    const integration = new HttpLambdaIntegration(`${owner}-integration`, handler);
    for (const key of keys) {
      const previous = this.routeOwners.get(key);
      if (previous) throw new Error(`Route "${key}" is claimed by both "${previous}" and "${owner}"`);
      this.routeOwners.set(key, owner);
      // The id is derived from the key, not its position: reordering the definition must not change logical
      // ids, or CloudFormation would create the "new" route before deleting the old one and hit a conflict.
      const route = new HttpRoute(this, `Route ${key.replaceAll('/', '|')}`, {
        httpApi: this.api,
        routeKey: parseRouteKey(key),
        integration,
      });
      acknowledge(route, 'AwsSolutions-APIG4', AUTHORIZER_REASONS[access]);
      if (throttle) {
        this.routeSettings[key] = { ThrottlingRateLimit: throttle.rate, ThrottlingBurstLimit: throttle.burst };
        this.stage.routeSettings = { ...this.routeSettings };
        // A stage's route settings name existing routes: CloudFormation must create the route first.
        this.stage.node.addDependency(route);
      }
    }
  }

  get url(): string {
    // The default stage is always created (createDefaultStage is left on).
    return this.api.apiEndpoint;
  }
}
