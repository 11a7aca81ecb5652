// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @notice 0x4200000000000000000000000000000000000030: Base's BaseTime predeploy (the Denim upgrade).
/// Blocks come every 200 ms while `block.timestamp` stays in whole seconds; the deposit that follows
/// the L1-attributes deposit in every block (tx[1]) writes the block's millisecond part here.
/// Interface, storage (the uint16 in slot 0) and checks as base/base's BaseTime and IBaseTime
/// (base-std interfaces/IBaseTime.sol; crates/common/consensus/src/base_time.rs for the deposit).
contract BaseTime {
    error BaseTime_NotDepositor();
    error BaseTime_InvalidTimestampMillisPart();

    /// The L1 attributes depositor account (specs/protocol/deposits.md).
    address internal constant DEPOSITOR_ACCOUNT = 0xDeaDDEaDDeAdDeAdDEAdDEaddeAddEAdDEAd0001;

    /// The millisecond part of the current block's timestamp: 0, 200, 400, 600 or 800.
    uint16 public timestampMillisPart;

    /// The current block's timestamp in milliseconds.
    function timestampMs() external view returns (uint64) {
        return uint64(block.timestamp * 1000 + timestampMillisPart);
    }

    /// Only the protocol's deposit may call this, with a multiple of 200 up to 800.
    function setTimestampMillisPart(uint16 _timestampMillisPart) external {
        if (msg.sender != DEPOSITOR_ACCOUNT) revert BaseTime_NotDepositor();
        if (_timestampMillisPart > 800 || _timestampMillisPart % 200 != 0) revert BaseTime_InvalidTimestampMillisPart();
        timestampMillisPart = _timestampMillisPart;
    }

    function version() external pure returns (string memory) {
        return "1.0.0+preconf";
    }
}
