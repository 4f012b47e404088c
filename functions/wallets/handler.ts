import { createApi } from '../../shared/http/pipeline.js';
import { walletsRuntime } from '../../shared/runtime/wallets.js';
import { walletRoutes } from './routes.js';

export const handler = createApi(walletRoutes, walletsRuntime());
