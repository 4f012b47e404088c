// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {Forwarder} from "./Forwarder.sol";

/// @title ForwarderFactory
/// @notice Deposit addresses of the gateway. Each deposit address is an EIP-1167 clone of one Forwarder
///         implementation at CREATE2(this factory, salt), computable offline. The hot wallet sweeps them in
///         batches: `deployAndFlush` deploys the clones that do not exist yet and moves their balances to the
///         treasury, paying the gas itself.
/// @dev    Same address on every EVM network. The factory is deployed through the CREATE2 deployer proxy
///         (0x4e59b44847b379578588920ca78fbf26c0b4956c) with a fixed salt, so its address is a function of its
///         init code only. The init code holds ONE constructor argument, `owner`: an address (a KMS key, which
///         has the same address on every EVM chain) that is the same on every network. Everything that may
///         differ per network or change over time (the hot wallet allowed to sweep, the treasury) is NOT in the
///         init code: the owner sets it after deployment with `setHotWallet` / `setTreasury`. Hence:
///           - the factory address, the implementation address (CREATE(factory, nonce 1)) and therefore every
///             deposit address are identical on all EVM networks for a given owner;
///           - rotating the hot wallet or moving the treasury changes no deposit address;
///           - a deposit sent on the "wrong" EVM chain is recoverable: deploy the same init code there, configure.
///         The alternatives were rejected: an `initialize()` callable by anyone first can be front-run on a public
///         chain; baking the hot wallet and treasury into the constructor would tie every deposit address to them.
///         The bytecode is compiled without a metadata hash (see scripts/build-contracts.ts), so editing comments
///         does not move the factory; changing code, compiler version or settings does (and moves every deposit
///         address): such a change is a new factory, deployed next to the old one, which keeps sweeping old
///         addresses.
contract ForwarderFactory {
    /// @notice The Forwarder every clone delegates to, created by this constructor (so at CREATE(this, 1)).
    address public immutable implementation;
    /// @notice keccak256 of the clone init code; `computeAddress` and off-chain code use it.
    bytes32 public immutable cloneInitCodeHash;

    /// @notice May change the hot wallet, the treasury and the owner. Cannot sweep.
    address public owner;
    /// @notice The only account allowed to deploy and flush forwarders.
    address public hotWallet;
    /// @notice Where every flush sends the funds.
    address public treasury;

    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);
    event HotWalletChanged(address indexed previousHotWallet, address indexed newHotWallet);
    event TreasuryChanged(address indexed previousTreasury, address indexed newTreasury);
    event ForwarderDeployed(bytes32 indexed salt, address indexed forwarder);
    /// @notice One per forwarder that moved a non-zero amount; `token` is address(0) for the native coin.
    event Swept(
        bytes32 indexed salt,
        address indexed forwarder,
        address indexed token,
        uint256 amount,
        address treasury
    );

    error NotOwner();
    error NotHotWallet();
    error ZeroAddress();
    error TreasuryNotSet();
    error DeployFailed(bytes32 salt);

    constructor(address owner_) {
        if (owner_ == address(0)) revert ZeroAddress();
        owner = owner_;
        emit OwnershipTransferred(address(0), owner_);
        address impl = address(new Forwarder());
        implementation = impl;
        cloneInitCodeHash = keccak256(_cloneInitCode(impl));
    }

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner();
        _;
    }

    modifier onlyHotWallet() {
        if (msg.sender != hotWallet) revert NotHotWallet();
        _;
    }

    // ---------------------------------------------------------------- configuration (owner)

    function setHotWallet(address newHotWallet) external onlyOwner {
        if (newHotWallet == address(0)) revert ZeroAddress();
        emit HotWalletChanged(hotWallet, newHotWallet);
        hotWallet = newHotWallet;
    }

    function setTreasury(address newTreasury) external onlyOwner {
        if (newTreasury == address(0)) revert ZeroAddress();
        emit TreasuryChanged(treasury, newTreasury);
        treasury = newTreasury;
    }

    function transferOwnership(address newOwner) external onlyOwner {
        if (newOwner == address(0)) revert ZeroAddress();
        emit OwnershipTransferred(owner, newOwner);
        owner = newOwner;
    }

    // ---------------------------------------------------------------- sweeping (hot wallet)

    /// @notice For each salt: deploys the forwarder if it has no code yet, then moves its whole balance of
    ///         `token` (the native coin when `token` is address(0)) to the treasury. All or nothing: one failing
    ///         forwarder reverts the batch.
    /// @return total The sum moved.
    function deployAndFlush(bytes32[] calldata salts, address token) external onlyHotWallet returns (uint256 total) {
        return _sweep(salts, token);
    }

    /// @notice `deployAndFlush(salts, address(0))`: sweeps the native coin.
    function flushNative(bytes32[] calldata salts) external onlyHotWallet returns (uint256 total) {
        return _sweep(salts, address(0));
    }

    /// @notice Deploys the forwarders that do not exist yet, without flushing.
    function deployForwarders(bytes32[] calldata salts) external onlyHotWallet {
        for (uint256 i = 0; i < salts.length; ++i) {
            _deploy(salts[i]);
        }
    }

    // ---------------------------------------------------------------- views

    /// @notice The deposit address for `salt`, deployed or not.
    function computeAddress(bytes32 salt) public view returns (address) {
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, cloneInitCodeHash)))));
    }

    function isDeployed(bytes32 salt) external view returns (bool) {
        return computeAddress(salt).code.length != 0;
    }

    // ---------------------------------------------------------------- internals

    function _sweep(bytes32[] calldata salts, address token) private returns (uint256 total) {
        address to = treasury;
        if (to == address(0)) revert TreasuryNotSet();
        for (uint256 i = 0; i < salts.length; ++i) {
            bytes32 salt = salts[i];
            address payable fwd = payable(_deploy(salt));
            uint256 amount = token == address(0) ? Forwarder(fwd).flushNative() : Forwarder(fwd).flushToken(token);
            if (amount != 0) {
                total += amount;
                emit Swept(salt, fwd, token, amount, to);
            }
        }
    }

    function _deploy(bytes32 salt) private returns (address fwd) {
        fwd = computeAddress(salt);
        if (fwd.code.length != 0) return fwd;
        bytes memory initCode = _cloneInitCode(implementation);
        address created;
        assembly ("memory-safe") {
            created := create2(0, add(initCode, 0x20), mload(initCode), salt)
        }
        if (created == address(0) || created != fwd) revert DeployFailed(salt);
        emit ForwarderDeployed(salt, fwd);
    }

    /// @dev EIP-1167 minimal proxy creation code (55 bytes): a 10-byte constructor that returns the 45-byte
    ///      runtime `363d3d373d3d3d363d73 <implementation> 5af43d82803e903d91602b57fd5bf3`.
    function _cloneInitCode(address impl) private pure returns (bytes memory) {
        return abi.encodePacked(hex"3d602d80600a3d3981f3363d3d373d3d3d363d73", impl, hex"5af43d82803e903d91602b57fd5bf3");
    }
}
