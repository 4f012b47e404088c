import { createPublicApi } from '../../shared/http/public-pipeline.js';
import { legacyRoutes, type LegacyDeps } from './routes.js';

const deps: LegacyDeps = {};

export const handler = createPublicApi(legacyRoutes, deps);
