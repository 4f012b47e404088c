import { EVENTS, parseRoutedEvent } from '../../shared/domain/events.js';
import { walletsRuntime } from '../../shared/runtime/wallets.js';
import { sqsWorker } from '../../shared/runtime/worker.js';
import { settleTransfer } from '../../shared/usecases/wallets/settle-transfer.js';

/**
 * `wallet-transfers` queue consumer: each `wallet_transfer.accepted` event the event router forwards settles its
 * transfer (shared/usecases/wallets/settle-transfer.ts), idempotently. A message that does not parse, or whose
 * settlement throws, comes back (partial batch failure).
 */
const deps = walletsRuntime();

export const handler = sqsWorker('wallet-transfers', async (record) => {
  const event = parseRoutedEvent(JSON.parse(record.body), [EVENTS.walletTransferAccepted]);
  await settleTransfer({ tenantId: event.tenant_id, transferId: event.payload.transfer_id }, deps);
});
