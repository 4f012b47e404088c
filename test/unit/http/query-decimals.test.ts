import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { z } from 'zod';
import { createApi } from '../../../shared/http/pipeline.js';
import { ok, route } from '../../../shared/http/route.js';
import { ListPaymentsQuery } from '../../../shared/usecases/payments/read-payments.js';
import { ConvertAmountQuery } from '../../../shared/usecases/rates/convert-amount.js';
import { apiEvent, lambdaContext } from './event.js';

/** Every decimal query parameter is parsed by the same schema: bad text is 400 invalid_request naming the field. */

const api = createApi(
  [route({ method: 'GET', path: '/list/', auth: 'public', query: ListPaymentsQuery, handle: async (req) => ok({ query: req.query }) })],
  {},
);
const call = async (query: Record<string, string>) =>
  (await api(apiEvent('GET', '/list/', { query }), lambdaContext)) as APIGatewayProxyStructuredResultV2 & { body: string };

const DECIMAL_QUERIES: ReadonlyArray<[string, z.ZodType, readonly string[]]> = [
  ['GET /payments/', ListPaymentsQuery(), ['amount_min', 'amount_max']],
  ['GET /rates/convert-amount/', ConvertAmountQuery(), ['amount', 'fee_percentage']],
];

describe('decimal query parameters', () => {
  it('GET /payments/?amount_min=1e400 is 400 invalid_request with details per field, never a 500', async () => {
    const res = await call({ amount_min: '1e400', amount_max: '1'.repeat(200) });
    expect(res.statusCode).toBe(400);
    const error = JSON.parse(res.body).error;
    expect(error.code).toBe('invalid_request');
    expect(Object.keys(error.details).sort()).toEqual(['amount_max', 'amount_min']);
  });

  it('amounts with more than two decimal places are refused as a filter; plain amounts pass as text', async () => {
    const res = await call({ amount_min: '1.234' });
    expect([res.statusCode, Object.keys(JSON.parse(res.body).error.details)]).toEqual([400, ['amount_min']]);
    const good = await call({ amount_min: '25', amount_max: '40.5' });
    expect(good.statusCode).toBe(200);
    expect(JSON.parse(good.body).query).toMatchObject({ amount_min: '25', amount_max: '40.5' });
  });

  it.each(DECIMAL_QUERIES)('%s checks each decimal parameter the same way', (_route, schema, fields) => {
    for (const field of fields) {
      for (const bad of ['1e400', 'abc', '-1', '1'.repeat(200), `0.${'1'.repeat(40)}`]) {
        const parsed = schema.safeParse({ currency_to: 'USD', [field]: bad });
        expect(parsed.success).toBe(false);
        expect(parsed.error?.issues.map((i) => i.path.join('.'))).toEqual([field]);
      }
    }
  });
});
