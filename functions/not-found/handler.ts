import { createPublicApi } from '../../shared/http/public-pipeline.js';

/** API Gateway's `$default` route: every path no group claims is 404 `not_found` in the envelope. It has no routes and needs nothing. */
export const handler = createPublicApi<Record<string, never>>([], {});
