import * as z from 'zod';
import type { CustodyAccountState, CustodyAddressState, CustodyTransferState } from '../../domain/custody.js';
import { ACCOUNT_STATUSES, ACCOUNT_TYPES, CUSTODY_BLOCKCHAINS } from '../../domain/custody.js';
import { jsonNumber } from '../../domain/money.js';
import { lazySchema } from '../../domain/lazy-schema.js';

/** The answers of the custody group (spec 2.10), as zod schemas for `/openapi.json`, and how states become them. */

const number = lazySchema(() => z.number().meta({ description: 'A JSON number written from the exact decimal.' }));

export const CustodyAccountRecord = lazySchema(() =>
  z
    .object({
      account_id: z.string(),
      name: z.string(),
      provider: z.string(),
      account_type: z.enum(ACCOUNT_TYPES),
      status: z.enum(ACCOUNT_STATUSES),
      created_at: z.string(),
      metadata: z.record(z.string(), z.string()),
    })
    .meta({ id: 'CustodyAccount' }),
);

export const custodyAccountRecord = (a: CustodyAccountState) => ({
  account_id: a.accountId,
  name: a.name,
  provider: a.provider,
  account_type: a.accountType,
  status: a.status,
  created_at: a.createdAt,
  metadata: { ...a.metadata },
});

export const CustodyBalanceRow = lazySchema(() =>
  z.object({
    blockchain: z.enum(CUSTODY_BLOCKCHAINS),
    token: z.string(),
    balance: number(),
    usd_value: number(),
    available: number(),
    locked: number(),
    last_transaction_at: z.string().nullable(),
  }),
);

export const CustodyBalances = lazySchema(() =>
  z
    .object({ account_id: z.string(), last_updated: z.string(), total_usd_value: number(), balances: z.array(CustodyBalanceRow()) })
    .meta({ id: 'CustodyBalances' }),
);

export const CustodyAccountDetail = lazySchema(() =>
  CustodyAccountRecord()
    .extend({
      updated_at: z.string(),
      balances_summary: z.object({
        total_usd: number(),
        blockchains: z.array(z.object({ blockchain: z.enum(CUSTODY_BLOCKCHAINS), token: z.string(), balance: number(), usd_value: number() })),
      }),
    })
    .meta({ id: 'CustodyAccountDetail' }),
);

export const CustodyAddressRecord = lazySchema(() =>
  z
    .object({
      account_id: z.string(),
      blockchain: z.enum(CUSTODY_BLOCKCHAINS),
      address: z.string(),
      is_new: z.boolean().optional().meta({ description: 'On creation: whether this call created it.' }),
      created_at: z.string(),
      last_deposit_at: z.string().nullable().optional().meta({ description: 'In the list.' }),
      qr_code: z.string().meta({ description: 'A data:image/svg+xml URL of the address as a QR code.' }),
    })
    .meta({ id: 'CustodyAddress' }),
);

export const CustodyTransferRecord = lazySchema(() =>
  z
    .object({
      transfer_id: z.string(),
      from_account_id: z.string(),
      to_account_id: z.string(),
      blockchain: z.enum(CUSTODY_BLOCKCHAINS),
      amount: number(),
      status: z.string(),
      created_at: z.string(),
      completed_at: z.string().nullable(),
      reference: z.string().nullable(),
    })
    .meta({ id: 'CustodyTransfer' }),
);

export const custodyTransferRecord = (t: CustodyTransferState) => ({
  transfer_id: t.transferId,
  from_account_id: t.fromAccountId,
  to_account_id: t.toAccountId,
  blockchain: t.blockchain,
  amount: jsonNumber(t.amount),
  status: t.status,
  created_at: t.createdAt,
  completed_at: t.completedAt,
  reference: t.reference,
});

export const addressFields = (a: CustodyAddressState) => ({ account_id: a.accountId, blockchain: a.blockchain, address: a.address, created_at: a.createdAt });
