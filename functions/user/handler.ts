import { createApi } from '../../shared/http/pipeline.js';
import { userRoutes } from './routes.js';

export const handler = createApi(userRoutes);
