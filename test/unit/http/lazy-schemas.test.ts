import * as z from 'zod';
import { documentedRoutes, renderOpenApi } from '../../../scripts/openapi-document.js';
import { lazySchema } from '../../../shared/domain/lazy-schema.js';

/**
 * Answer schemas are built on first use (shared/domain/lazy-schema.ts), not when a route group loads: an API Lambda
 * never reads them, only the OpenAPI document does. What is built is seen in zod's global registry, where a schema
 * with `.meta({ id })` is entered when it is built (`_idmap`, the registry's own index of ids).
 */
const registeredIds = (): ReadonlySet<string> => new Set((z.globalRegistry as unknown as { _idmap: Map<string, unknown> })._idmap.keys());

/** Answer schemas of several groups, by their registry ids (each published under `components.schemas`). */
const ANSWER_IDS = [
  'Payment',
  'PaymentCreated',
  'Withdrawal',
  'Balances',
  'CustodyAccount',
  'CustodyBalances',
  'Wallet',
  'WalletBalance',
  'TransactionList',
  'Refund',
];

describe('lazySchema', () => {
  it('builds its schema on the first call only, and answers the same instance afterwards', () => {
    let builds = 0;
    const Answer = lazySchema(() => {
      builds += 1;
      return z.object({ id: z.string() });
    });
    expect(builds).toBe(0);
    const first = Answer();
    expect(Answer()).toBe(first);
    expect(builds).toBe(1);
    expect(first.parse({ id: 'a' })).toEqual({ id: 'a' });
  });
});

describe('answer schemas of the route groups', () => {
  it('are not built when every group is loaded, and are when the OpenAPI document is generated', () => {
    expect(documentedRoutes().length).toBeGreaterThan(50);
    const loaded = registeredIds();
    expect(ANSWER_IDS.filter((id) => loaded.has(id))).toEqual([]);

    const document = JSON.parse(renderOpenApi()) as { components: { schemas: Record<string, unknown> } };
    const generated = registeredIds();
    expect(ANSWER_IDS.filter((id) => !generated.has(id))).toEqual([]);
    expect(Object.keys(document.components.schemas)).toEqual(expect.arrayContaining(ANSWER_IDS));
  });
});
