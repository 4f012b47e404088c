import { createApi } from '../../shared/http/pipeline.js';
import { custodySyncRuntime } from '../../shared/runtime/custody-sync.js';
import { custodySyncRoutes } from './routes.js';

export const handler = createApi(custodySyncRoutes, custodySyncRuntime());
