import { createApi } from '../../shared/http/pipeline.js';
import { docsRoutes } from './docs.js';
import { systemRoutes } from './routes.js';

export const handler = createApi([...systemRoutes, ...docsRoutes], {});
