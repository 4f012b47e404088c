import { createApi } from '../../shared/http/pipeline.js';
import { currenciesRuntime } from '../../shared/runtime/currencies.js';
import { currencyRoutes } from './routes.js';

export const handler = createApi(currencyRoutes, currenciesRuntime());
