// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @notice What a forwarder needs to know about the factory that deployed it.
interface IForwarderFactory {
    /// @return The address every forwarder sweeps to.
    function treasury() external view returns (address);
}
