import { App, Tags, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { GatewayStack } from './gateway-stack.js';

/**
 * `cdk synth|deploy [-c stage=dev] [-c alarmEmail=ops@example.com] [-c publicBaseUrl=https://api.example.com] [-c evmRpcUrls='{"ETH":"https://..."}']
 *  [-c hotWalletMinBalance='{"ETH":"0.05"}'] [-c sweepStuckMinutes=15] [-c withdrawalStuckMinutes=30] [-c redriveAfterMinutes=10]
 *  [-c forwarderFactories='{"ETH":"0x...","TRX":"T..."}'] [-c forwarderImplementationTrx=T...] [-c tronApiUrl=https://api.trongrid.io]
 *  [-c btcApiUrl=https://blockstream.info/api] [-c btcNetwork=mainnet|testnet] [-c solanaRpcUrl=https://api.mainnet-beta.solana.com]
 *  [-c platformLimits='{"max_payment_amount":"50000.00"}']
 *  [-c tokenContracts='{"USDTERC20":"0x..."}'] [-c withdrawalBatchContract=0x...] [-c subscriptionCollectorContract=0x...]`;
 * the stage can also come from $STAGE. `local` is the embedded stack (infra/local), never a deployment.
 */
const app = new App();
// AWS's best-practice rule packs at every synth: a finding neither fixed nor acknowledged (with its reason, on the
// narrowest construct) fails `cdk synth` and `cdk deploy`, as it fails test/infra/nag.test.ts.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
const context = (key: string): string | undefined => {
  const value: unknown = app.node.tryGetContext(key);
  return typeof value === 'string' && value.length > 0 ? value : undefined;
};

const stage = context('stage') ?? process.env.STAGE ?? 'prod';
if (!/^[a-z][a-z0-9-]{0,19}$/.test(stage) || stage === 'local') {
  throw new Error(`Invalid stage "${stage}": lower-case letters, digits and dashes, not "local"`);
}

const alarmEmail = context('alarmEmail');
const publicBaseUrl = context('publicBaseUrl');
/** `-c evmRpcUrls='{"ETH":"https://..."}'`: the chain workers' RPC endpoints. */
const evmRpcUrls = context('evmRpcUrls');
/** Alarm settings (shared/config/config.ts: HOT_WALLET_MIN_BALANCE, SWEEP_STUCK_MINUTES, WITHDRAWAL_STUCK_MINUTES, REDRIVE_AFTER_MINUTES). */
const hotWalletMinBalance = context('hotWalletMinBalance');
const minutes = (key: string): number | undefined => {
  const value: unknown = app.node.tryGetContext(key);
  return value === undefined || value === '' ? undefined : Number(value);
};
const sweepStuckMinutes = minutes('sweepStuckMinutes');
const json = (key: string): Record<string, string> | undefined => {
  const value = context(key);
  return value === undefined ? undefined : (JSON.parse(value) as Record<string, string>);
};
const forwarderFactories = json('forwarderFactories');
const tokenContracts = json('tokenContracts');
const forwarderImplementationTrx = context('forwarderImplementationTrx');
const tronApiUrl = context('tronApiUrl');
/** Bitcoin: an Esplora-compatible API (`BTC_API_URL`) and the network it serves (`BTC_NETWORK`; default from the stage). */
const btcApiUrl = context('btcApiUrl');
const btcNetwork = context('btcNetwork');
if (btcNetwork !== undefined && btcNetwork !== 'mainnet' && btcNetwork !== 'testnet') {
  throw new Error(`Invalid btcNetwork "${btcNetwork}": mainnet or testnet (local is the embedded stack's)`);
}
/** Solana JSON-RPC (`SOLANA_RPC_URL`): custody's SOL addresses and the fee payer key; off without it. */
const solanaRpcUrl = context('solanaRpcUrl');
/** The hot wallet's BatchPayout contract (infra/local/dev/deploy.ts `deployBatchPayout`): ERC-20 withdrawals go in batches. */
const withdrawalBatchContract = context('withdrawalBatchContract');
/** The hot wallet's SubscriptionCollector (infra/local/dev/deploy.ts `deploySubscriptionCollector`): pull subscriptions. */
const subscriptionCollectorContract = context('subscriptionCollectorContract');
const withdrawalStuckMinutes = minutes('withdrawalStuckMinutes');
const redriveAfterMinutes = minutes('redriveAfterMinutes');
/** `-c platformLimits='{"max_payment_amount":"50000.00"}'`: the platform's default tenant limits in USD. */
const platformLimits = json('platformLimits');
const stack = new GatewayStack(app, `PaymentGateway-${stage}`, {
  stage,
  description: `Crypto payment gateway (${stage})`,
  // Unset outside a CLI session with credentials: the template is then environment-agnostic (offline synth).
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  terminationProtection: stage === 'prod',
  ...(alarmEmail ? { alarmEmail } : {}),
  ...(publicBaseUrl ? { publicBaseUrl } : {}),
  ...(evmRpcUrls ? { evmRpcUrls: JSON.parse(evmRpcUrls) as Record<string, string> } : {}),
  ...(hotWalletMinBalance ? { hotWalletMinBalance: JSON.parse(hotWalletMinBalance) as Record<string, string> } : {}),
  ...(sweepStuckMinutes !== undefined ? { sweepStuckMinutes } : {}),
  ...(withdrawalStuckMinutes !== undefined ? { withdrawalStuckMinutes } : {}),
  ...(redriveAfterMinutes !== undefined ? { redriveAfterMinutes } : {}),
  ...(platformLimits ? { platformLimits } : {}),
  chains: {
    ...(forwarderFactories ? { forwarderFactories } : {}),
    ...(forwarderImplementationTrx ? { forwarderImplementationTrx } : {}),
    ...(tronApiUrl ? { tronApiUrl } : {}),
    ...(btcApiUrl ? { btcApiUrl } : {}),
    ...(btcNetwork ? { btcNetwork } : {}),
    ...(solanaRpcUrl ? { solanaRpcUrl } : {}),
    ...(tokenContracts ? { tokenContracts } : {}),
    ...(withdrawalBatchContract ? { withdrawalBatchContract } : {}),
    ...(subscriptionCollectorContract ? { subscriptionCollectorContract } : {}),
  },
});
Tags.of(stack).add('service', 'payment-gateway');
Tags.of(stack).add('stage', stage);

app.synth();
