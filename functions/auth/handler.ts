import { createApi } from '../../shared/http/pipeline.js';
import { authRoutes } from './routes.js';

export const handler = createApi(authRoutes, {});
