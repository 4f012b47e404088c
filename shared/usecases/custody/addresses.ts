import { AccountNotFoundError, isCustodyBlockchain } from '../../domain/custody.js';
import type { CustodyAddressState, CustodyBlockchain } from '../../domain/custody.js';
import { CUSTODY_BLOCKCHAINS } from '../../domain/custody.js';
import { GatewayError } from '../../domain/errors.js';
import { errorField, logger } from '../../observability/logger.js';
import { qrDataUrl } from '../qr.js';
import { findAccount } from './find-account.js';
import type { CustodyPorts, CustodyProvider, ProvidedAddress } from './ports.js';
import { addressFields } from './present.js';
import { CustodyProviderError } from './provider-error.js';

function blockchainOf(raw: string): CustodyBlockchain {
  const b = raw.toUpperCase();
  if (!isCustodyBlockchain(b))
    throw new GatewayError('unsupported_blockchain', `Custody supports ${CUSTODY_BLOCKCHAINS.join(', ')}.`, {
      blockchain: raw,
      supported: CUSTODY_BLOCKCHAINS,
    });
  return b;
}

/** Frees an address the provider made that was not stored (best effort: a leftover is logged, never an error). */
async function abandon(provider: CustodyProvider, made: ProvidedAddress): Promise<void> {
  try {
    await provider.abandon?.(made);
  } catch (error) {
    logger.warn('custody address not stored and not freed', { provider: provider.name, address: made.address, key_id: made.keyId, error: errorField(error) });
  }
}

/**
 * `POST /custody/accounts/:accountId/addresses/:blockchain`: the account's address on the chain, created on the first
 * call (`is_new: true`) and the same one after (concurrent first calls store one and all answer it).
 *
 * A provider that makes something per address (the built-in one's SOL key) may make it in each of several
 * concurrent first calls: only the stored one is ever used, and the others are abandoned (their keys scheduled for
 * deletion) once the stored address is read and known to be another. A call whose provider failed answers the
 * address a concurrent call stored meanwhile, if there is one.
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
  let derived: ProvidedAddress;
  try {
    derived = await provider.depositAddress(tenantId, account.accountId, blockchain);
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    const meanwhile = await deps.addresses.get(tenantId, account.accountId, blockchain);
    if (meanwhile) return { ...addressFields(meanwhile), is_new: false, qr_code: await qrDataUrl(meanwhile.address) };
    throw new CustodyProviderError(`The ${provider.name} provider could not give a ${blockchain} address.`, { cause: error });
  }
  const address = {
    tenantId,
    accountId: account.accountId,
    blockchain,
    address: derived.address,
    createdAt: deps.clock.now().toISOString(),
    lastDepositAt: null,
    ...(derived.keyId === undefined ? {} : { keyId: derived.keyId }),
  };
  let stored: { readonly address: CustodyAddressState; readonly created: boolean };
  try {
    stored = await deps.addresses.create(address, derived.family);
  } catch (error) {
    // Perhaps written after all: free the key only once a read shows the account's address is not this one.
    if (derived.keyId !== undefined) {
      const after = await deps.addresses.get(tenantId, account.accountId, blockchain).then(
        (a) => ({ stored: a }),
        () => null,
      );
      if (after && after.stored?.keyId !== derived.keyId) await abandon(provider, derived);
    }
    throw error;
  }
  if (!stored.created && derived.keyId !== undefined && stored.address.keyId !== derived.keyId) await abandon(provider, derived);
  return { ...addressFields(stored.address), is_new: stored.created, qr_code: await qrDataUrl(stored.address.address) };
}

/** `GET /custody/accounts/:accountId/addresses`: the chains that have an address. */
export async function listAddresses(tenantId: string, accountId: string, deps: Pick<CustodyPorts, 'accounts' | 'addresses'>) {
  const account = await findAccount(tenantId, accountId, deps);
  const all = await deps.addresses.list(tenantId, account.accountId);
  return Promise.all(all.map(async (a) => ({ ...addressFields(a), last_deposit_at: a.lastDepositAt, qr_code: await qrDataUrl(a.address) })));
}

export { AccountNotFoundError };
