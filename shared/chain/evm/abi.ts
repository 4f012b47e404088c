/**
 * Human-readable ABIs of the gateway's contracts, for code that calls deployed contracts (sweeper, scanner)
 * without reading build artifacts. The integration tests check them against the compiled ABIs.
 */

/** Reverts a forwarder may bubble up through the factory. */
const FORWARDER_ERRORS = ['error NotFactory()', 'error NativeTransferFailed()', 'error TokenTransferFailed(address token)'] as const;

export const FORWARDER_FACTORY_ABI = [
  'constructor(address owner_)',
  'function implementation() view returns (address)',
  'function cloneInitCodeHash() view returns (bytes32)',
  'function owner() view returns (address)',
  'function hotWallet() view returns (address)',
  'function treasury() view returns (address)',
  'function setHotWallet(address newHotWallet)',
  'function setTreasury(address newTreasury)',
  'function transferOwnership(address newOwner)',
  'function deployAndFlush(bytes32[] salts, address token) returns (uint256 total)',
  'function flushNative(bytes32[] salts) returns (uint256 total)',
  'function deployForwarders(bytes32[] salts)',
  'function computeAddress(bytes32 salt) view returns (address)',
  'function isDeployed(bytes32 salt) view returns (bool)',
  'event OwnershipTransferred(address indexed previousOwner, address indexed newOwner)',
  'event HotWalletChanged(address indexed previousHotWallet, address indexed newHotWallet)',
  'event TreasuryChanged(address indexed previousTreasury, address indexed newTreasury)',
  'event ForwarderDeployed(bytes32 indexed salt, address indexed forwarder)',
  'event Swept(bytes32 indexed salt, address indexed forwarder, address indexed token, uint256 amount, address treasury)',
  'error NotOwner()',
  'error NotHotWallet()',
  'error ZeroAddress()',
  'error TreasuryNotSet()',
  'error DeployFailed(bytes32 salt)',
  ...FORWARDER_ERRORS,
] as const;

export const FORWARDER_ABI = [
  'function factory() view returns (address)',
  'function flushToken(address token) returns (uint256 amount)',
  'function flushNative() returns (uint256 amount)',
  ...FORWARDER_ERRORS,
] as const;

/** The batch payout contract (contracts/BatchPayout.sol): many ERC-20 withdrawals of one token in one call. */
export const BATCH_PAYOUT_ABI = [
  'constructor(address hotWallet_)',
  'function hotWallet() view returns (address)',
  'function MAX_ITEMS() view returns (uint256)',
  'function payout(address token, address[] recipients, uint256[] amounts) returns (uint256 failed)',
  'event Payouts(address indexed token, uint256 count, uint256 failed)',
  'error NotHotWallet()',
  'error ZeroAddress()',
  'error LengthMismatch()',
  'error TooManyItems()',
  'error NotAContract(address token)',
] as const;

/** ERC-20 as the gateway uses it, plus TestToken's `mint`. */
export const ERC20_ABI = [
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function decimals() view returns (uint8)',
  'function totalSupply() view returns (uint256)',
  'function balanceOf(address account) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function transfer(address to, uint256 amount) returns (bool)',
  'function approve(address spender, uint256 amount) returns (bool)',
  'function transferFrom(address from, address to, uint256 amount) returns (bool)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event Approval(address indexed owner, address indexed spender, uint256 value)',
] as const;

export const TEST_TOKEN_ABI = [
  ...ERC20_ABI,
  'constructor(string name_, string symbol_, uint8 decimals_, address owner_)',
  'function owner() view returns (address)',
  'function mint(address to, uint256 amount)',
  'function transferOwnership(address newOwner)',
  'event OwnershipTransferred(address indexed previousOwner, address indexed newOwner)',
  'error NotOwner()',
  'error ZeroAddress()',
  'error InsufficientBalance(uint256 balance, uint256 needed)',
  'error InsufficientAllowance(uint256 allowance, uint256 needed)',
] as const;
