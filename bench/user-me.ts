import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startStack } from '../infra/local/stack.js';
import { configureTenant } from '../shared/usecases/tenants/manage-tenants.js';
import { createTenant } from '../shared/usecases/tenants/create-tenant.js';
import { clientAuthFrom, issueToken } from '../shared/usecases/auth/issue-token.js';
import { load, type LoadResult } from './load.js';
import { combine, mean, recordRequest, replayPerSecond, settleThenCompare, TURNS, type RecordedRequest } from './round-trips.js';
import { tenantsRuntime } from '../shared/runtime/tenants.js';
import { authRuntime } from '../shared/runtime/auth.js';

/**
 * `GET /user/me/` through the local HTTP server (event conversion, the full middy pipeline, the table operations
 * of the credential, the tenant, the rate windows and the profile in DynamoDB Local) beside a bare Node HTTP server
 * answering a fixed JSON body of the same size, and beside the same table operations issued directly (the gateway and
 * those in turns), measured in the same run with the same load generator.
 */
export interface UserMeBench {
  readonly gateway: LoadResult;
  readonly bare: LoadResult;
  /** One request's table operations as recorded, in their round trips. */
  readonly request: RecordedRequest;
  /** Those operations issued directly, round trip by round trip, 10 at a time. */
  readonly rawStorePerSecond: number;
  /** The gateway and the direct operations ran in turns, this many runs of each. */
  readonly slices: number;
  /** Seconds of each run. */
  readonly sliceSeconds: number;
}

export async function benchUserMe(seconds: number, slices = TURNS): Promise<UserMeBench> {
  const stack = await startStack({
    dataDir: null,
    logLevel: 'silent',
    ports: { http: 0, dynamodb: 0, sqs: 0, kms: 0 },
    parts: { anvil: false, contracts: false, pollers: false },
  });
  const bare = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(fixed);
  });
  let fixed = '{}';
  try {
    const made = await createTenant({ name: 'Bench' }, tenantsRuntime());
    // The benchmark measures throughput, not the rate limiter's refusals.
    await configureTenant({ tenant_id: made.tenant.id, requests_per_hour: 100_000_000 }, tenantsRuntime());
    const auth = clientAuthFrom(undefined, { client_id: made.clientId, client_secret: made.clientSecret });
    const { access_token: token } = await issueToken({ grant_type: 'client_credentials' }, auth, new Date(), authRuntime());
    const url = `${stack.apiUrl}/user/me/`;
    const sample = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
    if (sample.status !== 200) throw new Error(`GET /user/me/ answered ${sample.status}`);
    fixed = await sample.text();
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/user/me/`;
    const headers = { Authorization: `Bearer ${token}` };
    await load({ url: bareUrl, seconds: 2 });
    await load({ url, seconds: 2, headers });
    const request = await recordRequest(() => fetch(url, { headers }));
    if (request.status !== 200) throw new Error(`GET /user/me/ answered ${request.status}`);
    const bareResult = await load({ url: bareUrl, seconds });
    const turns = await settleThenCompare(
      seconds,
      (run) => load({ url, seconds: run, headers }),
      (run) => replayPerSecond(request, run),
      slices,
    );
    return { gateway: combine(turns.a), bare: bareResult, request, rawStorePerSecond: mean(turns.b), slices: turns.turns, sliceSeconds: turns.turnSeconds };
  } finally {
    bare.close();
    await stack.stop();
  }
}
