// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title ContractWallet
/// @notice A minimal smart-contract wallet for tests: its owner makes it call anything, and it accepts (ERC-1271) a
///         65-byte signature of a digest by its owner.
contract ContractWallet {
    address public immutable owner;

    error NotOwner();
    error CallFailed();

    constructor(address owner_) {
        owner = owner_;
    }

    function execute(address to, bytes calldata data) external returns (bytes memory result) {
        if (msg.sender != owner) revert NotOwner();
        bool ok;
        (ok, result) = to.call(data);
        if (!ok) revert CallFailed();
    }

    function isValidSignature(bytes32 digest, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return 0xffffffff;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        return ecrecover(digest, v, r, s) == owner ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }
}
