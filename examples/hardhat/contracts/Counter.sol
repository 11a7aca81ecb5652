// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice A plain counter: one storage slot, one event.
contract Counter {
    uint256 public count;

    event Incremented(address indexed by, uint256 newCount);

    function increment() external {
        count += 1;
        emit Incremented(msg.sender, count);
    }

    function set(uint256 value) external {
        count = value;
    }
}
