import { GatewayError } from '../../domain/errors.js';

/**
 * A provider that failed: 500 `custody_provider_error`, nothing stored. A module of its own so that what only
 * reports a provider's failure (the sync) does not bundle the deposit addresses' use case and its QR encoder.
 */
export class CustodyProviderError extends GatewayError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('custody_provider_error', message, {}, options);
    this.name = 'CustodyProviderError';
  }
}
