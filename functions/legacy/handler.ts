import { createApi } from '../../shared/http/pipeline.js';
import { legacyRoutes, type LegacyDeps } from './routes.js';

const deps: LegacyDeps = {};

export const handler = createApi(legacyRoutes, deps);
