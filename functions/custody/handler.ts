import { createApi } from '../../shared/http/pipeline.js';
import { custodyAccountsRuntime } from '../../shared/runtime/custody-accounts.js';
import { custodyAccountRoutes, custodyTransferRoutes } from './routes.js';

export const handler = createApi([...custodyAccountRoutes, ...custodyTransferRoutes], custodyAccountsRuntime());
