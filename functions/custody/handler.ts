import { createApi } from '../../shared/http/pipeline.js';
import { custodyRuntime } from '../../shared/runtime/custody.js';
import { custodyRoutes } from './routes.js';

export const handler = createApi(custodyRoutes, custodyRuntime());
