// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import { L1Block } from "./L1Block.sol";

/// @title GasPriceOracle (predeploy 0x420000000000000000000000000000000000000F)
/// @notice The L1 data fee of a transaction, as the execution engine charges it. Written for
///         hardhat-preconf to the OP Stack's public interface (specs/protocol/predeploys.md,
///         fjord/predeploys.md, isthmus/predeploys.md, jovian/). Ecotone through Jovian are active.
contract GasPriceOracle {
    /// @notice Fixed-point decimals of the scalars (6).
    uint256 public constant DECIMALS = 6;
    /// @notice Fjord's linear regression of the compressed size (specs/protocol/fjord/exec-engine.md).
    int256 private constant COST_INTERCEPT = -42_585_600;
    uint256 private constant COST_FASTLZ_COEF = 836_500;
    /// @notice The smallest size a transaction is priced at, in bytes, scaled by 1e6.
    uint256 private constant MIN_TRANSACTION_SIZE_SCALED = 100 * 1e6;

    L1Block private constant L1_BLOCK = L1Block(0x4200000000000000000000000000000000000015);

    bool public constant isEcotone = true;
    bool public constant isFjord = true;
    bool public constant isIsthmus = true;
    bool public constant isJovian = true;

    function version() external pure returns (string memory) {
        return "1.5.0+preconf";
    }

    function decimals() external pure returns (uint256) {
        return DECIMALS;
    }

    function gasPrice() external view returns (uint256) {
        return block.basefee;
    }

    function baseFee() external view returns (uint256) {
        return block.basefee;
    }

    function overhead() external pure returns (uint256) {
        revert("GasPriceOracle: overhead() is deprecated");
    }

    function scalar() external pure returns (uint256) {
        revert("GasPriceOracle: scalar() is deprecated");
    }

    function l1BaseFee() public view returns (uint256) {
        return L1_BLOCK.basefee();
    }

    function blobBaseFee() public view returns (uint256) {
        return L1_BLOCK.blobBaseFee();
    }

    function baseFeeScalar() public view returns (uint32) {
        return L1_BLOCK.baseFeeScalar();
    }

    function blobBaseFeeScalar() public view returns (uint32) {
        return L1_BLOCK.blobBaseFeeScalar();
    }

    /// @notice The L1 fee of an unsigned, RLP-encoded transaction; 68 bytes are added for the
    ///         signature it will carry (Fjord).
    function getL1Fee(bytes calldata _data) external view returns (uint256) {
        return _fjordL1Cost(flzCompressLen(_data) + 68);
    }

    /// @notice Fjord's upper bound for a transaction of `_unsignedTxSize` bytes (LZ4's
    ///         `size / 255 + 16` overhead), without compressing anything.
    function getL1FeeUpperBound(uint256 _unsignedTxSize) external view returns (uint256) {
        uint256 txSize = _unsignedTxSize + 68;
        return _fjordL1Cost(txSize + txSize / 255 + 16);
    }

    /// @notice The L1 gas of an unsigned transaction: its estimated size × 16 (deprecated by Fjord).
    function getL1GasUsed(bytes calldata _data) external pure returns (uint256) {
        return (_estimatedSizeScaled(flzCompressLen(_data) + 68) * 16) / 1e6;
    }

    /// @notice Jovian's operator fee for `_gasUsed` gas: gasUsed × operatorFeeScalar × 100 +
    ///         operatorFeeConstant (specs/protocol/jovian/exec-engine.md, "Fee Formula Update").
    function getOperatorFee(uint256 _gasUsed) external view returns (uint256) {
        return _gasUsed * L1_BLOCK.operatorFeeScalar() * 100 + L1_BLOCK.operatorFeeConstant();
    }

    function _estimatedSizeScaled(uint256 _fastLzSize) private pure returns (uint256) {
        int256 estimated = COST_INTERCEPT + int256(COST_FASTLZ_COEF * _fastLzSize);
        if (estimated < int256(MIN_TRANSACTION_SIZE_SCALED)) return MIN_TRANSACTION_SIZE_SCALED;
        return uint256(estimated);
    }

    /// @notice Fjord: estimatedSize × (16 × l1BaseFee × baseFeeScalar + blobBaseFee ×
    ///         blobBaseFeeScalar) / 1e12 (specs/protocol/fjord/exec-engine.md).
    function _fjordL1Cost(uint256 _fastLzSize) private view returns (uint256) {
        uint256 feeScaled = 16 * l1BaseFee() * baseFeeScalar() + blobBaseFee() * blobBaseFeeScalar();
        return (_estimatedSizeScaled(_fastLzSize) * feeScaled) / 1e12;
    }

    /// @notice The length of the FastLZ (level 1) compression of `_data`: literal runs of up to 32
    ///         bytes cost one byte more than their length, matches of up to 8 bytes cost 2 bytes,
    ///         longer ones 3 (and 3 more every 262 bytes). The same count as op-geth's
    ///         FlzCompressLen (core/types/rollup_cost.go) and Solady's LibZip.flzCompress.
    function flzCompressLen(bytes calldata _data) public pure returns (uint256 n) {
        uint256 length = _data.length;
        uint256[8192] memory table;
        uint256 anchor = 0;
        uint256 limit = length < 13 ? 0 : length - 13;
        uint256 ip = 2;
        while (ip < limit) {
            uint256 ref;
            uint256 seq;
            bool found = false;
            while (true) {
                seq = _u24(_data, ip);
                uint256 h = _hash(seq);
                ref = table[h];
                table[h] = ip;
                if (ip >= limit) break;
                uint256 distance = ip - ref;
                ip++;
                if (distance <= 0x1fff && seq == _u24(_data, ref)) {
                    found = true;
                    break;
                }
            }
            if (!found || ip >= limit) break;
            ip--;
            if (ip > anchor) n += _literalsLen(ip - anchor);
            uint256 matched = _matchLen(_data, ref + 3, ip + 3, limit + 9);
            n += _matchCost(matched);
            ip += matched;
            table[_hash(_u24(_data, ip))] = ip;
            ip++;
            table[_hash(_u24(_data, ip))] = ip;
            ip++;
            anchor = ip;
        }
        n += _literalsLen(length - anchor);
    }

    function _u24(bytes calldata _data, uint256 _i) private pure returns (uint256) {
        return uint256(uint8(_data[_i])) | (uint256(uint8(_data[_i + 1])) << 8) | (uint256(uint8(_data[_i + 2])) << 16);
    }

    /// @notice Fibonacci hashing into 13 bits, in 32-bit arithmetic as FastLZ does.
    function _hash(uint256 _v) private pure returns (uint256) {
        return (((2654435769 * _v) & 0xffffffff) >> 19) & 0x1fff;
    }

    function _literalsLen(uint256 _r) private pure returns (uint256 n) {
        n = 0x21 * (_r / 0x20);
        _r %= 0x20;
        if (_r != 0) n += _r + 1;
    }

    function _matchCost(uint256 _l) private pure returns (uint256 n) {
        _l--;
        n = 3 * (_l / 262);
        n += _l % 262 >= 6 ? 3 : 2;
    }

    /// @notice How many bytes from `_p` equal those from `_q`, counted up to `_end` (exclusive) for `_q`.
    function _matchLen(bytes calldata _data, uint256 _p, uint256 _q, uint256 _end) private pure returns (uint256 l) {
        uint256 e = _end - _q;
        while (l < e) {
            if (_data[_p + l] != _data[_q + l]) return l + 1;
            l++;
        }
    }
}
