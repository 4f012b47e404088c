import { createApi } from '../../shared/http/pipeline.js';
import { authRuntime } from '../../shared/runtime/auth.js';
import { authRoutes } from './routes.js';

export const handler = createApi(authRoutes, authRuntime());
