// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {IERC20Minimal} from "./interfaces/IERC20Minimal.sol";
import {IForwarderFactory} from "./interfaces/IForwarderFactory.sol";

/// @title Forwarder
/// @notice Logic of a deposit address. The factory deploys ONE instance of this contract (the implementation,
///         in its own constructor) and, per deposit address, an EIP-1167 minimal proxy ("clone") that delegates
///         to it, at CREATE2(factory, salt). Customers pay to the clone's address before it exists; the hot
///         wallet later asks the factory to deploy the clone and flush it, in one transaction.
/// @dev    Initialisation: the factory is recorded once, as an immutable, by the implementation's constructor
///         (`msg.sender` there is the factory). Immutables live in the implementation's code, which every clone
///         executes through DELEGATECALL, so every clone "knows" its factory without any storage write or
///         initialiser call: no per-clone SSTORE (~22k gas saved per deposit) and nothing a third party could
///         front-run. The treasury is read from the factory at flush time, so the owner can change it.
contract Forwarder {
    /// @notice The factory that created the implementation; the only account allowed to flush.
    address public immutable factory;

    error NotFactory();
    error NativeTransferFailed();
    error TokenTransferFailed(address token);

    constructor() {
        factory = msg.sender;
    }

    modifier onlyFactory() {
        if (msg.sender != factory) revert NotFactory();
        _;
    }

    /// @notice Accepts the native coin. Note: once the clone is deployed, a plain transfer costs more than the
    ///         2300-gas stipend of Solidity's `transfer`; before deployment (the normal case) it is a plain account.
    receive() external payable {}

    /// @notice Moves this address's whole balance of `token` to the factory's treasury.
    /// @return amount The amount moved (0 when there was nothing to move).
    function flushToken(address token) external onlyFactory returns (uint256 amount) {
        amount = IERC20Minimal(token).balanceOf(address(this));
        if (amount == 0) return 0;
        address to = IForwarderFactory(factory).treasury();
        (bool ok, bytes memory ret) = token.call(abi.encodeCall(IERC20Minimal.transfer, (to, amount)));
        if (!ok) revert TokenTransferFailed(token);
        // Tokens that return nothing (USDT on Ethereum) are accepted. A token that returns `false` is accepted
        // only if the balance really left (USDT on TRON returns false on success); otherwise the flush fails.
        if (ret.length != 0 && !abi.decode(ret, (bool))) {
            if (IERC20Minimal(token).balanceOf(address(this)) != 0) revert TokenTransferFailed(token);
        }
    }

    /// @notice Moves this address's whole native balance to the factory's treasury.
    /// @return amount The amount moved (0 when there was nothing to move).
    function flushNative() external onlyFactory returns (uint256 amount) {
        amount = address(this).balance;
        if (amount == 0) return 0;
        address to = IForwarderFactory(factory).treasury();
        (bool ok, ) = to.call{value: amount}("");
        if (!ok) revert NativeTransferFailed();
    }
}
