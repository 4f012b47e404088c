import type { Route } from '../../shared/http/route.js';
import { authRoutes } from '../auth/routes.js';
import { legacyRoutes } from '../legacy/handler.js';
import { userRoutes } from '../user/routes.js';
import { systemRoutes } from './routes.js';

/** Every documented route of every group, for the OpenAPI document. A new group adds itself here. */
export const allRoutes = (): readonly Route[] => [...authRoutes, ...userRoutes, ...systemRoutes, ...legacyRoutes];
