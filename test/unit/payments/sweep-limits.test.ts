import { parseConfig } from '../../../shared/config/config.js';
import { chainTxRuntime } from '../../../shared/runtime/chain-tx.js';
import { scannedNetworks, scannersRuntime } from '../../../shared/runtime/scanner.js';

/**
 * How many deposits one sweep takes, per network: on TRON a sweep burns energy up to the fee limit and reverts past
 * it with the fee spent, so its batches are smaller than on EVM networks unless configured together.
 */
const EVM_FACTORY = '0x1111111111111111111111111111111111111111';
const TRON = (byte: number) => 'T' + String.fromCharCode(65 + byte).repeat(33);

const limits = (env: Record<string, string> = {}) => {
  const cfg = parseConfig({
    TABLE_NAME: 't',
    STAGE: 'prod',
    EVM_RPC_URLS: JSON.stringify({ ETH: 'http://127.0.0.1:8545' }),
    FORWARDER_FACTORIES: JSON.stringify({ ETH: EVM_FACTORY, TRX: TRON(1) }),
    FORWARDER_IMPLEMENTATION_TRX: TRON(2),
    TRON_API_URL: 'http://127.0.0.1:9090',
    HOT_WALLET_KEY_ID: 'key-1',
    ...env,
  });
  const deps = scannersRuntime(cfg, chainTxRuntime(cfg));
  return Object.fromEntries(scannedNetworks(cfg).map((n) => [n.network, deps.sweepFor(n).maxSalts]));
};

it('takes 50 deposits a sweep on EVM networks and 10 on TRON by default', () => {
  expect(limits()).toEqual({ ETH: 50, TRX: 10 });
});

it('follows SWEEP_BATCH_MAX_SALTS and TRON_SWEEP_BATCH_MAX_SALTS', () => {
  expect(limits({ SWEEP_BATCH_MAX_SALTS: '20', TRON_SWEEP_BATCH_MAX_SALTS: '3' })).toEqual({ ETH: 20, TRX: 3 });
});
