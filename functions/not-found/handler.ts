import { createApi } from '../../shared/http/pipeline.js';

/** API Gateway's `$default` route: every path no group claims is 404 `not_found` in the envelope. */
export const handler = createApi([], {});
