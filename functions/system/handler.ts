import { createApi } from '../../shared/http/pipeline.js';
import { systemRuntime, type SystemDeps } from '../../shared/runtime/system.js';
import { docsRoutes } from './docs.js';
import { systemRoutes } from './routes.js';

export const handler = createApi<SystemDeps>([...systemRoutes, ...docsRoutes], systemRuntime());
