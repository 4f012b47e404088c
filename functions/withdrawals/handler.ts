import { createApi } from '../../shared/http/pipeline.js';
import { withdrawalRoutes } from './routes.js';

export const handler = createApi(withdrawalRoutes, {});
