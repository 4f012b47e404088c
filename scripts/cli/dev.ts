/** `dev ...`: helpers for the local stack only (they read `.local/stack.json`). */
import { json, need, str } from './command.js';
import type { CommandGroup } from './command.js';

export const devCommands: CommandGroup = {
  payment: {
    usage: 'dev payment --amount X --currency CODE [--tenant TENANT_ID] [--description TEXT] [--success-url URL] [--json]',
    summary:
      "Make a payment for a tenant (default: the newest) through the API's use case and print its record with checkout_url, the hosted page to open in a browser; pay it with `dev pay`.",
    options: { amount: str, currency: str, tenant: str, description: str, 'success-url': str, json },
    run: async (values) => {
      const { devPayment } = await import('../../infra/local/dev/dev-payment.js');
      const opt = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
      const tenantId = opt('tenant');
      const description = opt('description');
      const successUrl = opt('success-url');
      return devPayment({
        amount: need(values, 'amount'),
        currency: need(values, 'currency'),
        ...(tenantId !== undefined ? { tenantId } : {}),
        ...(description !== undefined ? { description } : {}),
        ...(successUrl !== undefined ? { successUrl } : {}),
      });
    },
    text: (r) => {
      const p = r as { transaction_id: string; amount_crypto: string; currency: string; address: string; checkout_url: string };
      return `payment ${p.transaction_id}: ${p.amount_crypto} ${p.currency} to ${p.address}\ncheckout: ${p.checkout_url}\npay it: npm run gateway -- dev pay ${p.transaction_id}`;
    },
  },
  pay: {
    usage: 'dev pay <transaction_id> [--amount X]',
    summary:
      "Pay a payment on its network's local chain with one ordinary transfer from a funded test account (default: the amount still due); the chain confirms it on its own.",
    options: { amount: { type: 'string' }, json },
    run: async (values, positionals) => {
      const id = positionals[0];
      if (!id) throw new Error('transaction_id is required');
      const { readFileSync } = await import('node:fs');
      const { resolve } = await import('node:path');
      const { devPay, localChainsOf } = await import('../../infra/local/dev/dev-pay.js');
      const stack = JSON.parse(readFileSync(resolve(process.env.GATEWAY_LOCAL_DIR ?? '.local', 'stack.json'), 'utf8')) as Parameters<typeof localChainsOf>[0];
      const amount = typeof values.amount === 'string' ? values.amount : undefined;
      return devPay(id, amount, localChainsOf(stack));
    },
    text: (r) => {
      const p = r as { amount: string; currency: string; address: string; transaction_hash: string };
      return `paid ${p.amount} ${p.currency} to ${p.address}: ${p.transaction_hash}`;
    },
  },
  deposit: {
    usage: 'dev deposit --custody ACCOUNT_ID --blockchain ETH|BSC|TRX|SOL --amount X [--tenant TENANT_ID] [--json]',
    summary:
      "Send USDT to a custody account's address on the local chain (made first if the account has none there): ETH and BSC from a funded test account, TRX and SOL from the local node's faucet. The scanners, the Solana poller or POST .../sync credit it.",
    options: { custody: str, blockchain: str, amount: str, tenant: str, json },
    run: async (values) => {
      const { readFileSync } = await import('node:fs');
      const { resolve } = await import('node:path');
      const { localChainsOf } = await import('../../infra/local/dev/dev-pay.js');
      const { devDeposit } = await import('../../infra/local/dev/dev-deposit.js');
      const stack = JSON.parse(readFileSync(resolve(process.env.GATEWAY_LOCAL_DIR ?? '.local', 'stack.json'), 'utf8')) as Parameters<typeof localChainsOf>[0];
      const input = { accountId: need(values, 'custody'), blockchain: need(values, 'blockchain'), amount: need(values, 'amount') };
      return devDeposit(typeof values.tenant === 'string' ? { ...input, tenantId: values.tenant } : input, localChainsOf(stack));
    },
    text: (r) => {
      const d = r as { amount: string; currency: string; address: string; transaction_hash: string };
      return `sent ${d.amount} ${d.currency} to ${d.address}: ${d.transaction_hash}`;
    },
  },
  clock: {
    usage: 'dev clock advance --tenant TENANT_ID --days N [--json]',
    summary:
      "Move a tenant's subscription clock N days ahead (outside production only) and run the subscription advancer once: renewals, past due and expiry show in seconds.",
    options: { tenant: str, days: str, json },
    run: async (values, positionals) => {
      if (positionals[0] !== 'advance') throw new Error('usage: dev clock advance --tenant TENANT_ID --days N');
      const { devClockAdvance } = await import('../../infra/local/dev/dev-clock.js');
      return devClockAdvance(need(values, 'tenant'), Number(need(values, 'days')));
    },
    text: (r) => {
      const c = r as { tenant_id: string; offset_days: number; tenant_now: string; due: number; steps: number; failed: number };
      return `tenant ${c.tenant_id}: clock ${c.offset_days} days ahead (${c.tenant_now}); ${c.due} subscriptions due, ${c.steps} steps taken, ${c.failed} refused`;
    },
  },
};
