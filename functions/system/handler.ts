import { createPublicApi } from '../../shared/http/public-pipeline.js';
import { systemRuntime, type SystemDeps } from '../../shared/runtime/system.js';
import { docsRoutes } from './docs.js';
import { systemRoutes } from './routes.js';

export const handler = createPublicApi<SystemDeps>([...systemRoutes, ...docsRoutes], systemRuntime());
