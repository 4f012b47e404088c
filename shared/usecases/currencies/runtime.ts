/** @deprecated moved to shared/runtime/currencies.ts */
export { disabledCurrencies, rpcUrl, tokenContract } from '../../runtime/currencies.js';
