// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import { L1Block } from "./L1Block.sol";

// The other predeploys of specs/protocol/predeploys.md, reduced to the getters that name their
// role and wiring. Nothing here moves assets between L1 and L2: this chain has no L1.

/// @notice 0x4200000000000000000000000000000000000013: the L1 block number (legacy).
contract L1BlockNumber {
    function getL1BlockNumber() public view returns (uint256) {
        return L1Block(0x4200000000000000000000000000000000000015).number();
    }

    fallback(bytes calldata) external payable returns (bytes memory) {
        return abi.encode(getL1BlockNumber());
    }

    function version() external pure returns (string memory) {
        return "1.1.0+preconf";
    }
}

/// @notice 0x4200000000000000000000000000000000000000 (deprecated): every message is reported unsent.
contract LegacyMessagePasser {
    mapping(bytes32 => bool) public sentMessages;

    function version() external pure returns (string memory) {
        return "1.1.0+preconf";
    }
}

/// @notice 0x4200000000000000000000000000000000000002 (deprecated): deployments are open to all.
contract DeployerWhitelist {
    address public owner;
    mapping(address => bool) public whitelist;

    function isDeployerAllowed(address) external pure returns (bool) {
        return true;
    }

    function version() external pure returns (string memory) {
        return "1.1.0+preconf";
    }
}

/// @notice 0x4200000000000000000000000000000000000007.
contract L2CrossDomainMessenger {
    uint16 public constant MESSAGE_VERSION = 1;
    address public constant OTHER_MESSENGER = address(0);
    uint240 internal msgNonce;

    function messageNonce() external view returns (uint256) {
        return (uint256(MESSAGE_VERSION) << 240) | uint256(msgNonce);
    }

    function otherMessenger() external pure returns (address) {
        return OTHER_MESSENGER;
    }

    function l1CrossDomainMessenger() external pure returns (address) {
        return OTHER_MESSENGER;
    }

    /// @notice No cross-domain message is ever being relayed here.
    function xDomainMessageSender() external pure returns (address) {
        revert("CrossDomainMessenger: xDomainMessageSender is not set");
    }

    function version() external pure returns (string memory) {
        return "2.1.0+preconf";
    }
}

/// @notice 0x4200000000000000000000000000000000000010.
contract L2StandardBridge {
    address public constant MESSENGER = 0x4200000000000000000000000000000000000007;
    address public constant OTHER_BRIDGE = address(0);

    function messenger() external pure returns (address) {
        return MESSENGER;
    }

    function otherBridge() external pure returns (address) {
        return OTHER_BRIDGE;
    }

    function l1TokenBridge() external pure returns (address) {
        return OTHER_BRIDGE;
    }

    function version() external pure returns (string memory) {
        return "1.11.1+preconf";
    }
}

/// @notice 0x4200000000000000000000000000000000000014.
contract L2ERC721Bridge {
    address public constant MESSENGER = 0x4200000000000000000000000000000000000007;
    address public constant OTHER_BRIDGE = address(0);

    function messenger() external pure returns (address) {
        return MESSENGER;
    }

    function otherBridge() external pure returns (address) {
        return OTHER_BRIDGE;
    }

    function version() external pure returns (string memory) {
        return "1.8.0+preconf";
    }
}

/// @notice 0x4200000000000000000000000000000000000012.
contract OptimismMintableERC20Factory {
    address public constant BRIDGE = 0x4200000000000000000000000000000000000010;

    function bridge() external pure returns (address) {
        return BRIDGE;
    }

    function version() external pure returns (string memory) {
        return "1.10.1+preconf";
    }
}

/// @notice 0x4200000000000000000000000000000000000017.
contract OptimismMintableERC721Factory {
    address public constant BRIDGE = 0x4200000000000000000000000000000000000014;

    function bridge() external pure returns (address) {
        return BRIDGE;
    }

    function version() external pure returns (string memory) {
        return "1.4.1+preconf";
    }
}

/// @notice 0x4200000000000000000000000000000000000018.
contract ProxyAdmin {
    /// @notice No one administers the simulated predeploys.
    function owner() external pure returns (address) {
        return address(0);
    }
}

/// @notice 0x4200000000000000000000000000000000000020 (Ethereum Attestation Service schemas).
contract SchemaRegistry {
    function version() external pure returns (string memory) {
        return "1.3.0+preconf";
    }
}

/// @notice 0x4200000000000000000000000000000000000021 (Ethereum Attestation Service).
contract EAS {
    function getSchemaRegistry() external pure returns (address) {
        return 0x4200000000000000000000000000000000000020;
    }

    function version() external pure returns (string memory) {
        return "1.4.1+preconf";
    }
}
