// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title L1Block (predeploy 0x4200000000000000000000000000000000000015)
/// @notice The L1 attributes of the current L2 block, written by the L1-attributes deposit that
///         opens every block. Written for hardhat-preconf to the public interface and storage layout
///         of the OP Stack's L1Block (specs/protocol/predeploys.md, ecotone/l1-attributes.md,
///         isthmus/l1-attributes.md, jovian/l1-attributes.md); op-geth reads slots 1, 3, 7 and 8
///         directly (core/types/rollup_cost.go), so the layout below is the OP Stack's.
contract L1Block {
    /// @notice The L1 attributes depositor account (specs/protocol/deposits.md).
    address public constant DEPOSITOR_ACCOUNT = 0xDeaDDEaDDeAdDeAdDEAdDEaddeAddEAdDEAd0001;

    // slot 0
    uint64 public number;
    uint64 public timestamp;
    // slot 1
    uint256 public basefee;
    // slot 2
    bytes32 public hash;
    // slot 3: sequenceNumber in bytes [24:32), blobBaseFeeScalar [20:24), baseFeeScalar [16:20)
    uint64 public sequenceNumber;
    uint32 public blobBaseFeeScalar;
    uint32 public baseFeeScalar;
    // slot 4
    bytes32 public batcherHash;
    // slot 5, 6: pre-Ecotone fee parameters, kept for the layout
    uint256 public l1FeeOverhead;
    uint256 public l1FeeScalar;
    // slot 7
    uint256 public blobBaseFee;
    // slot 8: operatorFeeScalar at offset 0 (bytes [28:32)), operatorFeeConstant at offset 4
    // (bytes [20:28)) (specs/protocol/isthmus/exec-engine.md, "Configuring Operator Fee Parameters"),
    // daFootprintGasScalar at offset 12 (bytes [18:20)) (specs/protocol/jovian/exec-engine.md, "Scalar loading")
    uint32 public operatorFeeScalar;
    uint64 public operatorFeeConstant;
    uint16 public daFootprintGasScalar;

    function version() external pure returns (string memory) {
        return "1.7.0+preconf";
    }

    /// @notice Ether is the gas-paying token on every chain simulated here.
    function gasPayingToken() external pure returns (address addr_, uint8 decimals_) {
        return (0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE, 18);
    }

    function gasPayingTokenName() external pure returns (string memory) {
        return "Ether";
    }

    function gasPayingTokenSymbol() external pure returns (string memory) {
        return "ETH";
    }

    function isCustomGasToken() external pure returns (bool) {
        return false;
    }

    /// @notice Ecotone setter (selector 0x440a5e20): 160 bytes packed after the selector
    ///         (specs/protocol/ecotone/l1-attributes.md).
    function setL1BlockValuesEcotone() external {
        require(msg.sender == DEPOSITOR_ACCOUNT, "L1Block: only the depositor account can set L1 block values");
        require(msg.data.length == 164, "L1Block: expected 164 bytes of Ecotone L1 attributes");
        _setEcotone();
    }

    /// @notice Isthmus setter (selector 0x098999be): the Ecotone fields, then operatorFeeScalar
    ///         (uint32) and operatorFeeConstant (uint64) (specs/protocol/isthmus/l1-attributes.md).
    function setL1BlockValuesIsthmus() external {
        require(msg.sender == DEPOSITOR_ACCOUNT, "L1Block: only the depositor account can set L1 block values");
        require(msg.data.length == 176, "L1Block: expected 176 bytes of Isthmus L1 attributes");
        _setEcotone();
        operatorFeeScalar = uint32(bytes4(msg.data[164:168]));
        operatorFeeConstant = uint64(bytes8(msg.data[168:176]));
    }

    /// @notice Jovian setter (selector 0x3db6be2b): the Isthmus fields, then daFootprintGasScalar
    ///         (uint16): 178 bytes (specs/protocol/jovian/l1-attributes.md).
    function setL1BlockValuesJovian() external {
        require(msg.sender == DEPOSITOR_ACCOUNT, "L1Block: only the depositor account can set L1 block values");
        require(msg.data.length == 178, "L1Block: expected 178 bytes of Jovian L1 attributes");
        _setEcotone();
        operatorFeeScalar = uint32(bytes4(msg.data[164:168]));
        operatorFeeConstant = uint64(bytes8(msg.data[168:176]));
        daFootprintGasScalar = uint16(bytes2(msg.data[176:178]));
    }

    function _setEcotone() private {
        baseFeeScalar = uint32(bytes4(msg.data[4:8]));
        blobBaseFeeScalar = uint32(bytes4(msg.data[8:12]));
        sequenceNumber = uint64(bytes8(msg.data[12:20]));
        timestamp = uint64(bytes8(msg.data[20:28]));
        number = uint64(bytes8(msg.data[28:36]));
        basefee = uint256(bytes32(msg.data[36:68]));
        blobBaseFee = uint256(bytes32(msg.data[68:100]));
        hash = bytes32(msg.data[100:132]);
        batcherHash = bytes32(msg.data[132:164]);
    }
}
