// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title BatchPayout
/// @notice Pays many ERC-20 withdrawals of one token in one transaction. The hot wallet approves this contract
///         once per token (the largest allowance) and calls `payout`: each item is a `transferFrom(hot wallet,
///         recipient, amount)`, so the tokens stay in the hot wallet until paid, a single withdrawal still pays
///         from the same balance, and this contract never holds funds.
/// @dev    One item that fails (a token that reverts for a blocked recipient, returns false, or runs out of the
///         hot wallet's balance) does not undo the others: every transfer is a low-level call, and the call's one
///         `Payouts` event carries a bitmap of the items NOT paid (bit i for item i). The gateway retries those
///         singly. A batch that reverts as a whole (out of gas, not the hot wallet) paid nothing.
///         Deployed through the CREATE2 deployer proxy with the hot wallet as its only constructor argument: the
///         same address on every EVM network for a given hot wallet (a KMS key has the same address on every
///         chain). A new hot wallet is a new deployment; nothing here is configurable.
contract BatchPayout {
    /// @notice The only account allowed to pay, and the one paid from.
    address public immutable hotWallet;
    /// @notice The most items in one call (the bitmap's width).
    uint256 public constant MAX_ITEMS = 256;

    /// @notice One per call: `count` items of `token`; bit i of `failed` is set when item i was not paid.
    event Payouts(address indexed token, uint256 count, uint256 failed);

    error NotHotWallet();
    error ZeroAddress();
    error LengthMismatch();
    error TooManyItems();
    error NotAContract(address token);

    constructor(address hotWallet_) {
        if (hotWallet_ == address(0)) revert ZeroAddress();
        hotWallet = hotWallet_;
    }

    /// @notice Pays `amounts[i]` of `token` to `recipients[i]` from the hot wallet (its allowance to this contract).
    /// @return failed Bit i set when item i was not paid (also in the `Payouts` event).
    function payout(address token, address[] calldata recipients, uint256[] calldata amounts) external returns (uint256 failed) {
        if (msg.sender != hotWallet) revert NotHotWallet();
        uint256 n = recipients.length;
        if (n != amounts.length) revert LengthMismatch();
        if (n > MAX_ITEMS) revert TooManyItems();
        // A call to an address without code "succeeds" without moving anything.
        if (token.code.length == 0) revert NotAContract(token);
        for (uint256 i; i < n; ) {
            if (!_transferFrom(token, msg.sender, recipients[i], amounts[i])) failed |= 1 << i;
            unchecked {
                ++i;
            }
        }
        emit Payouts(token, n, failed);
    }

    /// @dev `transferFrom` that never reverts: true when the call succeeded and returned nothing (USDT-style
    ///      tokens) or a 32-byte true. At most 32 bytes of return data are copied.
    function _transferFrom(address token, address from, address to, uint256 amount) private returns (bool ok) {
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            mstore(ptr, 0x23b872dd00000000000000000000000000000000000000000000000000000000)
            mstore(add(ptr, 0x04), from)
            mstore(add(ptr, 0x24), to)
            mstore(add(ptr, 0x44), amount)
            mstore(0x00, 0)
            ok := call(gas(), token, 0, ptr, 0x64, 0x00, 0x20)
            ok := and(ok, or(iszero(returndatasize()), and(gt(returndatasize(), 31), eq(mload(0x00), 1))))
        }
    }
}
