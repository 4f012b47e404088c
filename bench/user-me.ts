import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startStack } from '../infra/local/stack.js';
import { configureTenant } from '../shared/usecases/tenants/manage-tenants.js';
import { createTenant } from '../shared/usecases/tenants/create-tenant.js';
import { clientAuthFrom, issueToken } from '../shared/usecases/auth/issue-token.js';
import { sha256Hex } from '../shared/security/secrets.js';
import { getAccessToken } from '../shared/store/credentials.js';
import { getTenant } from '../shared/store/tenants.js';
import { countRequest, readUsage } from '../shared/store/usage.js';
import { load, type LoadResult } from './load.js';
import { tenantsRuntime } from '../shared/runtime/tenants.js';
import { authRuntime } from '../shared/runtime/auth.js';

/**
 * `GET /user/me/` through the local HTTP server (event conversion, the full middy pipeline, two reads and
 * two counter updates in DynamoDB Local) beside a bare Node HTTP server answering a fixed JSON body of the
 * same size, measured in the same run with the same load generator.
 */
export interface UserMeBench {
  readonly gateway: LoadResult;
  readonly bare: LoadResult;
  /** The same four table operations a /user/me/ request makes, issued directly, 10 at a time. */
  readonly rawStorePerSecond: number;
}

/** Direct SDK calls of one /user/me/ request's table work: token, tenant, usage update, usage query. */
async function rawStore(tokenHash: string, tenantId: string, seconds: number): Promise<number> {
  const deadline = Date.now() + seconds * 1000;
  let done = 0;
  const worker = async () => {
    while (Date.now() < deadline) {
      await getAccessToken(tokenHash);
      await getTenant(tenantId);
      await countRequest(tenantId, new Date());
      await readUsage(tenantId, new Date());
      done++;
    }
  };
  await Promise.all(Array.from({ length: 10 }, worker));
  return done / seconds;
}

export async function benchUserMe(seconds: number): Promise<UserMeBench> {
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
    // Warm both (JIT, connection pools) before measuring.
    await load({ url, seconds: 2, headers: { Authorization: `Bearer ${token}` } });
    await load({ url: bareUrl, seconds: 2 });
    const gateway = await load({ url, seconds, headers: { Authorization: `Bearer ${token}` } });
    const bareResult = await load({ url: bareUrl, seconds });
    const rawStorePerSecond = await rawStore(sha256Hex(token), made.tenant.id, seconds);
    return { gateway, bare: bareResult, rawStorePerSecond };
  } finally {
    bare.close();
    await stack.stop();
  }
}
