/**
 * The operator CLI: `npm run gateway -- <group> <command> [options]`.
 *
 * It talks to the local stack by default (reading `.local/stack.json`, written by `npm start`). To talk to
 * AWS instead, set `TABLE_NAME` and `AWS_REGION` (credentials come from the usual AWS chain).
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { GatewayError } from '../shared/domain/errors.js';
import type { Tenant } from '../shared/domain/tenant.js';
import { createApp } from '../shared/usecases/auth/apps.js';
import { apiKeysOf, createApiKey, revokeKey } from '../shared/usecases/tenants/api-keys.js';
import { createTenant } from '../shared/usecases/tenants/create-tenant.js';
import { allTenants, changeTenantStatus, configureTenant, requireTenant } from '../shared/usecases/tenants/manage-tenants.js';
import { authRuntime } from '../shared/runtime/auth.js';
import { tenantsRuntime } from '../shared/runtime/tenants.js';
import { balanceCommands } from './cli/balance.js';
import { custodyCommands } from './cli/custody.js';
import { UsageError, boolOpt, intOpt, json, limitOpt, need, scopesOpt, str } from './cli/command.js';
import type { CommandGroup, Values } from './cli/command.js';
import { devCommands } from './cli/dev.js';
import { refundCommands } from './cli/refund.js';
import { sandboxCommands } from './cli/sandbox.js';
import { statsText } from './cli/stats.js';
import type { TransactionStats } from '../shared/domain/transactions.js';
import { transactionsRuntime } from '../shared/runtime/transactions.js';
import { parseInput } from '../shared/usecases/ledger/input.js';
import { TransactionStatsQuery, transactionStats } from '../shared/usecases/transactions/transaction-stats.js';
import { walletCommands } from './cli/wallet.js';
import { workCommands } from './cli/work.js';

const tenantLine = (t: Tenant) => `${t.id}  ${t.status.padEnd(9)}  ${t.schema_name.padEnd(28)}  ${t.name}`;

const commands: Record<string, CommandGroup> = {
  tenant: {
    create: {
      usage: 'tenant create --name NAME [--email EMAIL] [--account-type business|individual] [--scopes "read write [admin]"] [--json]',
      summary: 'Create a tenant with its first OAuth application and API key (secrets are shown once).',
      options: { name: str, email: str, 'account-type': str, scopes: str, json },
      run: async (v) => {
        const created = await createTenant(
          {
            name: need(v, 'name'),
            contact_email: typeof v.email === 'string' ? v.email : null,
            account_type: v['account-type'] === 'individual' ? 'individual' : 'business',
            scopes: scopesOpt(v),
          },
          tenantsRuntime(),
        );
        return {
          tenant_id: created.tenant.id,
          schema_name: created.tenant.schema_name,
          client_id: created.clientId,
          client_secret: created.clientSecret,
          api_key: created.apiKey,
        };
      },
      text: (r) => {
        const o = r as Record<string, string>;
        return [
          `tenant_id      ${o.tenant_id}`,
          `schema_name    ${o.schema_name}`,
          `client_id      ${o.client_id}`,
          `client_secret  ${o.client_secret}   (shown once)`,
          `api_key        ${o.api_key}   (shown once)`,
        ].join('\n');
      },
    },
    list: {
      usage: 'tenant list [--json]',
      summary: 'List tenants.',
      options: { json },
      run: async () =>
        (await allTenants(tenantsRuntime())).map((t) => ({
          tenant_id: t.id,
          name: t.name,
          schema_name: t.schema_name,
          status: t.status,
          created_at: t.created_at,
        })),
      text: (r) => {
        const rows = r as { tenant_id: string; status: string; schema_name: string; name: string }[];
        return rows.length === 0 ? 'no tenants' : rows.map((t) => `${t.tenant_id}  ${t.status.padEnd(9)}  ${t.schema_name.padEnd(28)}  ${t.name}`).join('\n');
      },
    },
    show: {
      usage: 'tenant show TENANT_ID [--json]',
      summary: 'Show one tenant with its settings.',
      options: { json },
      run: async (_v, [id]) => requireTenant(id ?? '', tenantsRuntime()),
    },
    stats: {
      usage: 'tenant stats TENANT_ID [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--json]',
      summary: "A tenant's transaction statistics for a period (default the last 30 days), as GET /transactions/stats/ answers them.",
      options: { from: str, to: str, json },
      run: async (v, [id]) => {
        const tenant = await requireTenant(id ?? '', tenantsRuntime());
        const query = { ...(typeof v.from === 'string' ? { date_from: v.from } : {}), ...(typeof v.to === 'string' ? { date_to: v.to } : {}) };
        return transactionStats(tenant.id, parseInput(TransactionStatsQuery(), query), transactionsRuntime());
      },
      text: (r) => statsText(r as TransactionStats),
    },
    suspend: {
      usage: 'tenant suspend TENANT_ID [--json]',
      summary: 'Suspend a tenant: every request is refused with 403 account_suspended.',
      options: { json },
      run: async (_v, [id]) => changeTenantStatus({ tenant_id: id ?? '', status: 'suspended' }, tenantsRuntime()),
      text: (r) => tenantLine(r as Tenant),
    },
    activate: {
      usage: 'tenant activate TENANT_ID [--json]',
      summary: 'Activate a tenant.',
      options: { json },
      run: async (_v, [id]) => changeTenantStatus({ tenant_id: id ?? '', status: 'active' }, tenantsRuntime()),
      text: (r) => tenantLine(r as Tenant),
    },
    configure: {
      usage:
        'tenant configure TENANT_ID [--requests-per-hour N] [--payment-creations-per-hour N] [--expiry-minutes N] [--fee PERCENT] [--fee-paid-by-user true|false] [--ip-whitelist "1.2.3.4,10.0.0.0/8"] [--ip-whitelist-enabled true|false] [--scopes "read write admin"] [--max-payment-amount USD|default] [--daily-payment-limit USD|default] [--max-withdrawal-amount USD|default] [--daily-withdrawal-limit USD|default] [--auto-refund-excess true|false] [--auto-refund-threshold-usd USD] [--json]',
      summary:
        "Change a tenant's rate limits, fees, IP allow-list, maximum scopes, USD limits (`default`: the platform's) or automatic refunds of overpayments' excess.",
      options: {
        'requests-per-hour': str,
        'payment-creations-per-hour': str,
        'expiry-minutes': str,
        fee: str,
        'fee-paid-by-user': str,
        'ip-whitelist': str,
        'ip-whitelist-enabled': str,
        scopes: str,
        'max-payment-amount': str,
        'daily-payment-limit': str,
        'max-withdrawal-amount': str,
        'daily-withdrawal-limit': str,
        'auto-refund-excess': str,
        'auto-refund-threshold-usd': str,
        json,
      },
      run: async (v, [id]) =>
        configureTenant(
          {
            tenant_id: id ?? '',
            requests_per_hour: intOpt(v, 'requests-per-hour'),
            payment_creations_per_hour: intOpt(v, 'payment-creations-per-hour'),
            payment_expiry_minutes: intOpt(v, 'expiry-minutes'),
            transaction_fee: typeof v.fee === 'string' ? v.fee : undefined,
            is_fee_paid_by_user: boolOpt(v, 'fee-paid-by-user'),
            is_ip_whitelist_enabled: boolOpt(v, 'ip-whitelist-enabled'),
            ip_whitelist:
              typeof v['ip-whitelist'] === 'string'
                ? v['ip-whitelist']
                    .split(',')
                    .map((s) => s.trim())
                    .filter(Boolean)
                : undefined,
            scopes: scopesOpt(v),
            limits: {
              max_payment_amount: limitOpt(v, 'max-payment-amount'),
              daily_payment_limit: limitOpt(v, 'daily-payment-limit'),
              max_withdrawal_amount: limitOpt(v, 'max-withdrawal-amount'),
              daily_withdrawal_limit: limitOpt(v, 'daily-withdrawal-limit'),
            },
            ...(v['auto-refund-excess'] === undefined && v['auto-refund-threshold-usd'] === undefined
              ? {}
              : {
                  auto_refund_excess: {
                    enabled: boolOpt(v, 'auto-refund-excess'),
                    threshold_usd: typeof v['auto-refund-threshold-usd'] === 'string' ? v['auto-refund-threshold-usd'] : undefined,
                  },
                }),
          },
          tenantsRuntime(),
        ),
    },
  },
  app: {
    create: {
      usage: 'app create --tenant TENANT_ID --name NAME [--scopes "read write [admin]"] [--json]',
      summary: "Create an OAuth application for a tenant (scopes within the tenant's maximum).",
      options: { tenant: str, name: str, scopes: str, json },
      run: async (v) => {
        const tenant = await requireTenant(need(v, 'tenant'), tenantsRuntime());
        const { app, clientSecret } = await createApp(
          { name: need(v, 'name'), scopes: scopesOpt(v) ?? [...tenant.allowed_scopes] },
          { tenantId: tenant.id, scopes: tenant.allowed_scopes },
          new Date(),
          authRuntime(),
        );
        return { app_id: app.id, client_id: app.clientId, client_secret: clientSecret, scopes: app.scopes.join(' ') };
      },
    },
  },
  apikey: {
    create: {
      usage: 'apikey create --tenant TENANT_ID [--name NAME] [--scopes "read write"] [--json]',
      summary: 'Create an API key (X-API-Key) for a tenant; the key is shown once.',
      options: { tenant: str, name: str, scopes: str, json },
      run: async (v) => {
        const { key, apiKey } = await createApiKey(
          {
            tenant_id: need(v, 'tenant'),
            name: typeof v.name === 'string' ? v.name : undefined,
            scopes: scopesOpt(v),
          },
          tenantsRuntime(),
        );
        return { key_id: key.id, api_key: apiKey, scopes: key.scopes.join(' ') };
      },
    },
    list: {
      usage: 'apikey list --tenant TENANT_ID [--json]',
      summary: "List a tenant's API keys (prefixes only).",
      options: { tenant: str, json },
      run: async (v) =>
        (await apiKeysOf(need(v, 'tenant'), tenantsRuntime())).map((k) => ({
          key_id: k.id,
          name: k.name,
          prefix: k.prefix,
          scopes: k.scopes.join(' '),
          status: k.status,
        })),
    },
    revoke: {
      usage: 'apikey revoke --tenant TENANT_ID --key-id KEY_ID [--json]',
      summary: 'Revoke an API key at once.',
      options: { tenant: str, 'key-id': str, json },
      run: async (v) => {
        await revokeKey(need(v, 'tenant'), need(v, 'key-id'), tenantsRuntime());
        return { revoked: true, key_id: v['key-id'] };
      },
    },
  },
  balance: balanceCommands,
  wallet: walletCommands,
  refund: refundCommands,
  sandbox: sandboxCommands,
  work: workCommands,
  custody: custodyCommands,
  dev: devCommands,
};

function help(): string {
  const lines = ['Usage: npm run gateway -- <command> [options]   (add --help to any command)', ''];
  for (const cmds of Object.values(commands)) {
    for (const cmd of Object.values(cmds)) lines.push(`  ${cmd.usage}`, `      ${cmd.summary}`);
    lines.push('');
  }
  lines.push('Targets the local stack (.local/stack.json) unless TABLE_NAME and AWS_REGION are set.');
  return lines.join('\n');
}

/** Point the AWS SDK at the local stack unless the environment names an AWS table. */
function target(): void {
  if (process.env.TABLE_NAME && process.env.AWS_REGION) return;
  const file = resolve(process.env.GATEWAY_LOCAL_DIR ?? '.local', 'stack.json');
  if (!existsSync(file)) {
    throw new UsageError(`No local stack found (${file}). Start it with \`npm start\`, or set TABLE_NAME and AWS_REGION to use AWS.`);
  }
  // The same environment the local handlers run with (table, endpoints, keys, queue URLs).
  const stack = JSON.parse(readFileSync(file, 'utf8')) as { env: Record<string, string> };
  for (const [name, value] of Object.entries(stack.env)) process.env[name] ??= value;
}

export async function main(argv: string[]): Promise<number> {
  const [group, name, ...rest] = argv;
  if (!group || group === '--help' || group === 'help') {
    console.log(help());
    return 0;
  }
  const cmd = commands[group]?.[name ?? ''];
  if (!cmd) {
    console.error(`Unknown command: ${[group, name].filter(Boolean).join(' ')}\n\n${help()}`);
    return 2;
  }
  try {
    const { values, positionals } = parseArgs({ args: rest, options: { ...cmd.options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true });
    if (values.help) {
      console.log(`Usage: npm run gateway -- ${cmd.usage}\n\n${cmd.summary}`);
      return 0;
    }
    if (!cmd.tableFree) target();
    const result = await cmd.run(values as Values, positionals);
    console.log((values as Values).json || !cmd.text ? JSON.stringify(result, null, 2) : cmd.text(result));
    return 0;
  } catch (error) {
    if (error instanceof UsageError || ((error as Error).name === 'TypeError' && (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))) {
      console.error(`${(error as Error).message}\nUsage: npm run gateway -- ${cmd.usage}`);
      return 2;
    }
    if (error instanceof GatewayError) {
      console.error(`${error.code}: ${error.message}${Object.keys(error.details).length ? ` ${JSON.stringify(error.details)}` : ''}`);
      return 1;
    }
    if ((error as Error).name === 'ZodError') {
      console.error(`invalid input: ${(error as Error).message}`);
      return 2;
    }
    throw error;
  }
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('scripts/gateway.ts')) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : String(error));
      process.exit(1);
    },
  );
}
