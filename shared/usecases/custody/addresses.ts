import { AccountNotFoundError, isCustodyBlockchain } from '../../domain/custody.js';
import type { CustodyBlockchain } from '../../domain/custody.js';
import { CUSTODY_BLOCKCHAINS } from '../../domain/custody.js';
import { GatewayError } from '../../domain/errors.js';
import { qrDataUrl } from '../qr.js';
import { findAccount } from './find-account.js';
import type { CustodyPorts } from './ports.js';
import { addressFields } from './present.js';

/** A provider that failed: 500 `custody_provider_error`, nothing stored. */
export class CustodyProviderError extends GatewayError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('custody_provider_error', message, {}, options);
    this.name = 'CustodyProviderError';
  }
}

function blockchainOf(raw: string): CustodyBlockchain {
  const b = raw.toUpperCase();
  if (!isCustodyBlockchain(b))
    throw new GatewayError('unsupported_blockchain', `Custody supports ${CUSTODY_BLOCKCHAINS.join(', ')}.`, {
      blockchain: raw,
      supported: CUSTODY_BLOCKCHAINS,
    });
  return b;
}

/**
 * `POST /custody/accounts/:accountId/addresses/:blockchain`: the account's address on the chain, created on the first
 * call (`is_new: true`) and the same one after (concurrent first calls store one and all answer it).
 */
export async function depositAddress(
  tenantId: string,
  accountId: string,
  rawBlockchain: string,
  deps: Pick<CustodyPorts, 'accounts' | 'addresses' | 'providers' | 'clock'>,
) {
  const blockchain = blockchainOf(rawBlockchain);
  const account = await findAccount(tenantId, accountId, deps);
  const existing = await deps.addresses.get(tenantId, account.accountId, blockchain);
  if (existing) return { ...addressFields(existing), is_new: false, qr_code: await qrDataUrl(existing.address) };
  const provider = deps.providers[account.provider];
  if (!provider) throw new CustodyProviderError(`The account's provider ${account.provider} is not available.`);
  let derived: { address: string; family: string };
  try {
    derived = await provider.depositAddress(tenantId, account.accountId, blockchain);
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    throw new CustodyProviderError(`The ${provider.name} provider could not give a ${blockchain} address.`, { cause: error });
  }
  const stored = await deps.addresses.create(
    { tenantId, accountId: account.accountId, blockchain, address: derived.address, createdAt: deps.clock.now().toISOString(), lastDepositAt: null },
    derived.family,
  );
  return { ...addressFields(stored.address), is_new: stored.created, qr_code: await qrDataUrl(stored.address.address) };
}

/** `GET /custody/accounts/:accountId/addresses`: the chains that have an address. */
export async function listAddresses(tenantId: string, accountId: string, deps: Pick<CustodyPorts, 'accounts' | 'addresses'>) {
  const account = await findAccount(tenantId, accountId, deps);
  const all = await deps.addresses.list(tenantId, account.accountId);
  return Promise.all(all.map(async (a) => ({ ...addressFields(a), last_deposit_at: a.lastDepositAt, qr_code: await qrDataUrl(a.address) })));
}

export { AccountNotFoundError };
