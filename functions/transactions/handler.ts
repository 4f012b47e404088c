import { createApi } from '../../shared/http/pipeline.js';
import { transactionsRuntime } from '../../shared/runtime/transactions.js';
import { transactionRoutes } from './routes.js';

export const handler = createApi(transactionRoutes, transactionsRuntime());
