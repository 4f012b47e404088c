// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title SubscriptionCollector
/// @notice Pulls recurring ERC-20 payments ("pull" subscriptions) within limits the subscriber agreed to.
///
///         A mandate is a set of terms: the subscriber, the token, the payee (the gateway's address that receives
///         the charges), a cap per charge, a cap per period, the period's length in seconds, the start of period 0
///         and a salt (the gateway's reference, so that equal terms of two subscriptions are two mandates). Its id is
///         the EIP-712 struct hash of the terms, so a mandate cannot exist under terms other than its own.
///
///         The SUBSCRIBER authorises a mandate, never the gateway: either the subscriber sends `authorize(terms)`
///         itself, or it signs the terms as EIP-712 typed data (ECDSA, or ERC-1271 for a contract wallet) and anyone
///         (the gateway, paying the gas) submits `authorizeWithSignature`. The subscriber also approves this
///         contract for the token (`approve(collector, allowance)`); the approval bounds the total, the mandate
///         bounds each charge and each period. Revoking is either `revoke(terms)` (for good) or `approve(collector, 0)`.
///
///         Only `collector` (the gateway's KMS key, fixed at deployment) charges. Periods are numbered: period k
///         opens at `start + k * periodSeconds` and never closes, a mandate's charges go to non-decreasing period
///         numbers, and the charges of one period add up to at most `perPeriodCap`. So by any time t at most
///         `perPeriodCap * (1 + (t - start) / periodSeconds)` has been taken, each charge at most `perChargeCap`, and
///         a repeated charge for a period already charged in full is refused (an on-chain idempotency key).
///
/// @dev    `chargeBatch` charges many mandates of one token and payee in one call. One charge that fails (mandate
///         unknown or revoked, a cap, a period not open yet or gone by, the token refusing: allowance or balance
///         short, blocked account) does not undo the others: it emits `ChargeFailed` with a reason and sets its bit
///         in the returned bitmap; every charge made emits `Charged`. The transfer is a low-level `transferFrom` that
///         accepts tokens returning nothing (USDT) and a 32-byte true. This contract never holds funds.
///         Deployed through the CREATE2 deployer proxy with the collector as its only constructor argument: the
///         same address on every EVM network for a given key.
contract SubscriptionCollector {
    /// @notice The terms a subscriber agrees to (signed as EIP-712 typed data `Mandate`).
    struct Mandate {
        address subscriber;
        address token;
        address payee;
        uint128 perChargeCap;
        uint128 perPeriodCap;
        uint32 periodSeconds;
        uint64 start;
        uint64 salt;
    }

    bytes32 public constant MANDATE_TYPEHASH =
        keccak256(
            "Mandate(address subscriber,address token,address payee,uint128 perChargeCap,uint128 perPeriodCap,uint32 periodSeconds,uint64 start,uint64 salt)"
        );
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("SubscriptionCollector");
    bytes32 private constant VERSION_HASH = keccak256("1");
    /// @notice The most charges in one call (the bitmap's width).
    uint256 public constant MAX_CHARGES = 256;

    /// @notice Why a charge was not made (`ChargeFailed.reason`, `ChargeRefused.reason`).
    uint8 public constant NOT_AUTHORIZED = 1;
    uint8 public constant REVOKED = 2;
    uint8 public constant ABOVE_CHARGE_CAP = 3;
    uint8 public constant ABOVE_PERIOD_CAP = 4;
    uint8 public constant PERIOD_NOT_OPEN = 5;
    uint8 public constant PERIOD_PASSED = 6;
    uint8 public constant TRANSFER_FAILED = 7;

    /// @notice The only account allowed to charge (the gateway's key).
    address public immutable collector;

    // A mandate's state, one slot: status (bits 0-7: 0 unknown, 1 authorised, 2 revoked), the last period charged
    // (bits 8-71) and the amount charged in it (bits 72-199).
    mapping(bytes32 => uint256) private _state;

    event MandateAuthorized(
        bytes32 indexed mandateId,
        address indexed subscriber,
        address indexed token,
        address payee,
        uint256 perChargeCap,
        uint256 perPeriodCap,
        uint256 periodSeconds,
        uint256 start,
        uint256 salt
    );
    event MandateRevoked(bytes32 indexed mandateId, address indexed subscriber);
    event Charged(bytes32 indexed mandateId, uint256 period, uint256 amount);
    event ChargeFailed(bytes32 indexed mandateId, uint256 period, uint256 amount, uint256 reason);

    error NotCollector();
    error NotSubscriber();
    error ZeroAddress();
    error InvalidTerms();
    error MandateRevokedAlready();
    error BadSignature();
    error TooManyCharges();
    error MalformedCharges();
    error NotAContract(address token);
    error ChargeRefused(uint256 reason);

    constructor(address collector_) {
        if (collector_ == address(0)) revert ZeroAddress();
        collector = collector_;
    }

    // ------------------------------------------------------------------------------------------- mandates

    /// @notice The id of a mandate: the EIP-712 struct hash of its terms.
    function mandateId(Mandate calldata m) public pure returns (bytes32) {
        return _id(m.subscriber, m.token, m.payee, m.perChargeCap, m.perPeriodCap, m.periodSeconds, m.start, m.salt);
    }

    /// @notice The EIP-712 domain separator (name "SubscriptionCollector", version "1", this chain, this contract).
    function domainSeparator() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this)));
    }

    /// @notice A mandate's state: 0 unknown, 1 authorised, 2 revoked; the last period charged and its total.
    function mandateState(bytes32 id) external view returns (uint8 status, uint64 lastPeriod, uint128 chargedInPeriod) {
        uint256 s = _state[id];
        return (uint8(s), uint64(s >> 8), uint128(s >> 72));
    }

    /// @notice The subscriber authorises a mandate itself. Authorising one already authorised changes nothing.
    function authorize(Mandate calldata m) external returns (bytes32 id) {
        if (msg.sender != m.subscriber) revert NotSubscriber();
        return _authorize(m);
    }

    /// @notice Anyone submits a mandate the subscriber signed (EIP-712 `Mandate`; ERC-1271 when the subscriber
    ///         is a contract). Authorising one already authorised changes nothing.
    function authorizeWithSignature(Mandate calldata m, bytes calldata signature) external returns (bytes32 id) {
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", domainSeparator(), mandateId(m)));
        if (!_validSignature(m.subscriber, digest, signature)) revert BadSignature();
        return _authorize(m);
    }

    /// @notice The subscriber ends a mandate for good (also one not authorised yet: it never can be).
    function revoke(Mandate calldata m) external {
        if (msg.sender != m.subscriber) revert NotSubscriber();
        bytes32 id = mandateId(m);
        if (uint8(_state[id]) == 2) return;
        _state[id] = 2;
        emit MandateRevoked(id, m.subscriber);
    }

    function _authorize(Mandate calldata m) private returns (bytes32 id) {
        if (m.subscriber == address(0) || m.payee == address(0) || m.token.code.length == 0) revert InvalidTerms();
        if (m.periodSeconds == 0 || m.perChargeCap == 0 || m.perPeriodCap < m.perChargeCap) revert InvalidTerms();
        id = mandateId(m);
        uint256 status = uint8(_state[id]);
        if (status == 2) revert MandateRevokedAlready();
        if (status == 1) return id;
        _state[id] = 1;
        emit MandateAuthorized(id, m.subscriber, m.token, m.payee, m.perChargeCap, m.perPeriodCap, m.periodSeconds, m.start, m.salt);
    }

    function _validSignature(address signer, bytes32 digest, bytes calldata signature) private view returns (bool) {
        if (signer.code.length > 0) {
            (bool ok, bytes memory ret) = signer.staticcall(abi.encodeWithSelector(0x1626ba7e, digest, signature));
            return ok && ret.length >= 32 && abi.decode(ret, (bytes4)) == 0x1626ba7e;
        }
        if (signature.length != 65) return false;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        // Only the lower half of s (EIP-2): no second valid signature from the same one.
        if (uint256(s) > 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0) return false;
        address recovered = ecrecover(digest, v, r, s);
        return recovered != address(0) && recovered == signer;
    }

    // ------------------------------------------------------------------------------------------- charges

    /// @notice Charges one mandate `amount` for `period`; reverts with `ChargeRefused(reason)` when it cannot.
    function charge(Mandate calldata m, uint64 period, uint128 amount) external {
        if (msg.sender != collector) revert NotCollector();
        bytes32 id = mandateId(m);
        (uint256 reason, uint256 next) = _check(_state[id], m.perChargeCap, m.perPeriodCap, m.periodSeconds, m.start, period, amount);
        if (reason != 0) revert ChargeRefused(reason);
        // Recorded before the token is called (a token or a subscriber hook re-entering sees the charge made).
        _state[id] = next;
        if (!_transferFrom(m.token, m.subscriber, m.payee, amount)) revert ChargeRefused(TRANSFER_FAILED);
        emit Charged(id, period, amount);
    }

    /// @notice Charges many mandates of `token` payable to `payee`; one failing charge does not undo the others.
    ///         Each charge is three words (a mandate's terms without its token and payee, the period, the amount),
    ///         packed to keep call data small:
    ///           word 0: subscriber (bits 96-255) | start (bits 32-95) | periodSeconds (bits 0-31)
    ///           word 1: perChargeCap (bits 128-255) | perPeriodCap (bits 0-127)
    ///           word 2: amount (bits 128-255) | period (bits 64-127) | salt (bits 0-63)
    /// @return failed Bit i set when charge i was not made (its `ChargeFailed` event says why).
    function chargeBatch(address token, address payee, uint256[] calldata charges) external returns (uint256 failed) {
        if (msg.sender != collector) revert NotCollector();
        uint256 n = charges.length / 3;
        if (charges.length != n * 3) revert MalformedCharges();
        if (n > MAX_CHARGES) revert TooManyCharges();
        // A call to an address without code "succeeds" without moving anything.
        if (token.code.length == 0) revert NotAContract(token);
        for (uint256 i; i < n; ) {
            uint256 k = i * 3;
            if (!_chargePacked(token, payee, charges[k], charges[k + 1], charges[k + 2])) failed |= 1 << i;
            unchecked {
                ++i;
            }
        }
    }

    /// @dev One charge of a batch: checks, records, transfers; false (and `ChargeFailed`) when not made.
    function _chargePacked(address token, address payee, uint256 w0, uint256 w1, uint256 w2) private returns (bool) {
        bytes32 id = _packedId(token, payee, w0, w1, w2);
        uint128 amount = uint128(w2 >> 128);
        uint64 period = uint64(w2 >> 64);
        uint256 before = _state[id];
        (uint256 reason, uint256 next) = _check(before, uint128(w1 >> 128), uint128(w1), uint32(w0), uint64(w0 >> 32), period, amount);
        if (reason == 0) {
            // Recorded before the token is called (a token or a subscriber hook re-entering sees the charge made),
            // put back when the transfer fails.
            _state[id] = next;
            if (!_transferFrom(token, address(uint160(w0 >> 96)), payee, amount)) {
                _state[id] = before;
                reason = TRANSFER_FAILED;
            }
        }
        if (reason != 0) {
            emit ChargeFailed(id, period, amount, reason);
            return false;
        }
        emit Charged(id, period, amount);
        return true;
    }

    /// @dev `_id` of packed terms, hashed in scratch memory past the free memory pointer (nothing allocated).
    function _packedId(address token, address payee, uint256 w0, uint256 w1, uint256 w2) private pure returns (bytes32 id) {
        bytes32 typehash = MANDATE_TYPEHASH;
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            mstore(ptr, typehash)
            mstore(add(ptr, 0x20), shr(96, w0))
            mstore(add(ptr, 0x40), token)
            mstore(add(ptr, 0x60), payee)
            mstore(add(ptr, 0x80), shr(128, w1))
            mstore(add(ptr, 0xa0), and(w1, 0xffffffffffffffffffffffffffffffff))
            mstore(add(ptr, 0xc0), and(w0, 0xffffffff))
            mstore(add(ptr, 0xe0), and(shr(32, w0), 0xffffffffffffffff))
            mstore(add(ptr, 0x100), and(w2, 0xffffffffffffffff))
            id := keccak256(ptr, 0x120)
        }
    }

    /// @dev The mandate's limits against a charge: 0 and the state after it, or the reason it cannot be made.
    function _check(
        uint256 s,
        uint128 perChargeCap,
        uint128 perPeriodCap,
        uint32 periodSeconds,
        uint64 start,
        uint64 period,
        uint128 amount
    ) private view returns (uint256 reason, uint256 next) {
        uint256 status = uint8(s);
        uint256 last = uint64(s >> 8);
        uint256 total = period == last ? uint256(uint128(s >> 72)) + amount : amount;
        if (status != 1) reason = status == 0 ? NOT_AUTHORIZED : REVOKED;
        else if (amount > perChargeCap) reason = ABOVE_CHARGE_CAP;
        else if (period < last) reason = PERIOD_PASSED;
        else if (block.timestamp < uint256(start) + uint256(period) * periodSeconds) reason = PERIOD_NOT_OPEN;
        else if (total > perPeriodCap) reason = ABOVE_PERIOD_CAP;
        next = 1 | (uint256(period) << 8) | (total << 72);
    }

    function _id(
        address subscriber,
        address token,
        address payee,
        uint128 perChargeCap,
        uint128 perPeriodCap,
        uint32 periodSeconds,
        uint64 start,
        uint64 salt
    ) private pure returns (bytes32) {
        return keccak256(abi.encode(MANDATE_TYPEHASH, subscriber, token, payee, perChargeCap, perPeriodCap, periodSeconds, start, salt));
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
