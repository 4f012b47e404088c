/** @deprecated moved to shared/runtime/rates.ts (a factory: build it once at module scope) */
export { ratesRuntime as defaultRatesDeps } from '../../runtime/rates.js';
