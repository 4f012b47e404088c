import { GatewayError } from '../../domain/errors.js';
import { WORDING } from '../../domain/errors-wording.js';
import { parseJson } from '../json.js';
import type { Middleware, MiddyRequest } from './request.js';
import { header, stateOf } from './request.js';

export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Body parsing: at most 1 MB; JSON parsed losslessly (shared/http/json.ts); form bodies (base64 from API Gateway)
 * where the route accepts them; any other content type is 415. The raw text is kept (idempotency compares it).
 */
export function parseBody(): Middleware {
  return {
    before: (request: MiddyRequest) => {
      const state = stateOf(request);
      const route = state.route;
      const { body: raw, isBase64Encoded } = request.event;
      if (!route || raw === undefined || raw === null || raw === '') return;
      const bytes = isBase64Encoded ? Buffer.from(raw, 'base64') : Buffer.from(raw, 'utf8');
      if (bytes.length > MAX_BODY_BYTES) throw new GatewayError('payload_too_large');
      const text = bytes.toString('utf8');
      state.rawBody = text;
      if (!route.body) return;
      const type = (header(request.event, 'content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
      const accepts = route.bodyTypes ?? ['json'];
      if ((type === 'application/json' || type.endsWith('+json')) && accepts.includes('json')) {
        try {
          state.body = parseJson(text);
        } catch (error) {
          throw new GatewayError('invalid_request', `Malformed JSON: ${(error as Error).message}`, { body: [WORDING.notJson] });
        }
        return;
      }
      if (type === 'application/x-www-form-urlencoded' && accepts.includes('form')) {
        state.body = Object.fromEntries(new URLSearchParams(text));
        return;
      }
      const wanted = accepts.map((a) => (a === 'json' ? 'application/json' : 'application/x-www-form-urlencoded')).join(' or ');
      throw new GatewayError('unsupported_media_type', `The request body must be ${wanted}.`, { content_type: type || null });
    },
  };
}
