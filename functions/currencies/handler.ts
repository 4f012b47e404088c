import { createApi } from '../../shared/http/pipeline.js';
import { currencyRoutes } from './routes.js';

export const handler = createApi(currencyRoutes, {});
