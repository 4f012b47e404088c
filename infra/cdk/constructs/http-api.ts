import { HttpApi, HttpMethod, HttpRoute, HttpRouteKey } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { RouteKey } from '../../definition.js';

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
  private readonly routeOwners = new Map<string, string>();

  constructor(scope: Construct, id: string, props: GatewayHttpApiProps) {
    super(scope, id);
    // The $default route is added like any other (not via `defaultIntegration`): the functions read the
    // API's URL from their environment, so the API must exist before them.
    this.api = new HttpApi(this, 'HttpApi', {
      apiName: `payment-gateway-${props.stage}`,
      description: `Payment gateway (${props.stage})`,
    });
  }

  /** Routes each key to `handler`. A key claimed twice is an error, not a silent override. */
  addRoutes(owner: string, handler: IFunction, keys: readonly RouteKey[]): void {
    const integration = new HttpLambdaIntegration(`${owner}-integration`, handler);
    for (const key of keys) {
      const previous = this.routeOwners.get(key);
      if (previous) throw new Error(`Route "${key}" is claimed by both "${previous}" and "${owner}"`);
      this.routeOwners.set(key, owner);
      // The id is derived from the key, not its position: reordering the definition must not change logical
      // ids, or CloudFormation would create the "new" route before deleting the old one and hit a conflict.
      new HttpRoute(this, `Route ${key.replaceAll('/', '|')}`, {
        httpApi: this.api,
        routeKey: parseRouteKey(key),
        integration,
      });
    }
  }

  get url(): string {
    // The default stage is always created (createDefaultStage is left on).
    return this.api.apiEndpoint;
  }
}
