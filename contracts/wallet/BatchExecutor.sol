// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title BatchExecutor: a minimal ERC-7821 executor for accounts delegated with EIP-7702
/// @notice hardhat-preconf's simulated wallet delegates an account to this code (an EIP-7702
/// authorization) and sends the account's atomic batches as one call to its own `execute`
/// (docs/wallet.md). Two ERC-7821 modes: the batch without opData, which only the account itself
/// may execute, and the batch with opData, which anyone (a sponsor paying the gas) may submit with
/// the account's signature over the calls. Calls run in order; the first that reverts reverts all
/// of them with its revert data. The account also accepts ether, ERC-721 and ERC-1155 tokens and
/// answers ERC-1271 for signatures of its own key, as an account without code would be usable.
contract BatchExecutor {
    struct Call {
        address to;
        uint256 value;
        bytes data;
    }

    /// ERC-7821: call type 0x01 (batch), exec type 0x00 (revert on failure), no opData.
    bytes32 internal constant BATCH = 0x0100000000000000000000000000000000000000000000000000000000000000;
    /// ERC-7821: the same batch with opData (mode selector 0x78210001).
    bytes32 internal constant BATCH_WITH_OP_DATA = 0x0100000000007821000100000000000000000000000000000000000000000000;
    /// The signed-batch nonce's storage slot, out of the way of anything else the account runs (ERC-7201 style).
    bytes32 internal constant NONCE_SLOT = keccak256("hardhat-preconf.BatchExecutor.nonce");
    /// What a signed batch's digest starts with, so that no other signature of the key can pass for one.
    bytes32 internal constant BATCH_TYPEHASH = keccak256("hardhat-preconf.BatchExecutor.Batch(uint256 chainId,address account,uint256 nonce,bytes32 calls)");
    /// secp256k1's n / 2: larger `s` values are the malleable twins of valid signatures (EIP-2).
    uint256 internal constant HALF_N = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    error Unauthorized();
    error UnsupportedExecutionMode();

    /// @notice ERC-7821's entry point: runs `executionData`'s calls as this account.
    function execute(bytes32 mode, bytes calldata executionData) external payable {
        Call[] memory calls;
        if (mode == BATCH) {
            if (msg.sender != address(this)) revert Unauthorized();
            calls = abi.decode(executionData, (Call[]));
        } else if (mode == BATCH_WITH_OP_DATA) {
            bytes memory signature;
            (calls, signature) = abi.decode(executionData, (Call[], bytes));
            uint256 nonce = _nonce();
            if (_signer(batchDigest(nonce, calls), signature) != address(this)) revert Unauthorized();
            bytes32 slot = NONCE_SLOT;
            assembly {
                sstore(slot, add(nonce, 1))
            }
        } else {
            revert UnsupportedExecutionMode();
        }
        for (uint256 i = 0; i < calls.length; ++i) {
            address to = calls[i].to == address(0) ? address(this) : calls[i].to;
            (bool success, bytes memory result) = to.call{value: calls[i].value}(calls[i].data);
            if (!success) {
                assembly {
                    revert(add(result, 0x20), mload(result))
                }
            }
        }
    }

    /// @notice ERC-7821: the modes `execute` accepts.
    function supportsExecutionMode(bytes32 mode) external pure returns (bool) {
        return mode == BATCH || mode == BATCH_WITH_OP_DATA;
    }

    /// @notice The nonce the next signed batch must be signed with.
    function batchNonce() external view returns (uint256) {
        return _nonce();
    }

    /// @notice What the account's key signs (without any prefix) to let another sender submit `calls`.
    function batchDigest(uint256 nonce, Call[] memory calls) public view returns (bytes32) {
        return keccak256(abi.encode(BATCH_TYPEHASH, block.chainid, address(this), nonce, keccak256(abi.encode(calls))));
    }

    /// @notice ERC-1271: a signature by this account's own key is valid.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        return _signer(hash, signature) == address(this) ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }

    function onERC721Received(address, address, uint256, bytes calldata) external pure returns (bytes4) {
        return this.onERC721Received.selector;
    }

    function onERC1155Received(address, address, uint256, uint256, bytes calldata) external pure returns (bytes4) {
        return this.onERC1155Received.selector;
    }

    function onERC1155BatchReceived(address, address, uint256[] calldata, uint256[] calldata, bytes calldata) external pure returns (bytes4) {
        return this.onERC1155BatchReceived.selector;
    }

    /// @notice ERC-165: ERC-165 itself, ERC-721 and ERC-1155 token receivers.
    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x01ffc9a7 || interfaceId == 0x150b7a02 || interfaceId == 0x4e2312e0;
    }

    receive() external payable {}

    function _nonce() internal view returns (uint256 nonce) {
        bytes32 slot = NONCE_SLOT;
        assembly {
            nonce := sload(slot)
        }
    }

    /// The key that signed `digest` (65 bytes r ‖ s ‖ v), or address(0) for anything else.
    function _signer(bytes32 digest, bytes memory signature) internal pure returns (address) {
        if (signature.length != 65) return address(0);
        bytes32 r;
        bytes32 s;
        uint8 v;
        assembly {
            r := mload(add(signature, 0x20))
            s := mload(add(signature, 0x40))
            v := byte(0, mload(add(signature, 0x60)))
        }
        if (uint256(s) > HALF_N || (v != 27 && v != 28)) return address(0);
        return ecrecover(digest, v, r, s);
    }
}
