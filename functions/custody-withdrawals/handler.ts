import { createApi } from '../../shared/http/pipeline.js';
import { custodyWithdrawalsRuntime } from '../../shared/runtime/custody-withdrawals.js';
import { custodyWithdrawalRoutes } from './routes.js';

export const handler = createApi(custodyWithdrawalRoutes, custodyWithdrawalsRuntime());
