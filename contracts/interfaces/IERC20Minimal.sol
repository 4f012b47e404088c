// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @notice The part of ERC-20 the forwarders use. Return values are not relied upon for `transfer`
///         (see Forwarder.flushToken): USDT on Ethereum returns nothing, USDT on TRON returns false.
interface IERC20Minimal {
    function balanceOf(address account) external view returns (uint256);

    function transfer(address to, uint256 amount) external returns (bool);
}
