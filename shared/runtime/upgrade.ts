import { dynamoPayments } from '../store/payments.js';
import { dynamoTenants } from '../store/tenants.js';
import { carryLegacyDayTotals } from '../store/usage-upgrade.js';
import type { UpgradeDeps } from '../usecases/payments/upgrade-stored.js';

/** The stored-form upgrades' ports (the operator CLI's `migrate` commands; no Lambda loads them). */
export const upgradeRuntime = (): UpgradeDeps => ({ tenants: dynamoTenants, payments: dynamoPayments, carryDayTotals: carryLegacyDayTotals });
