/**
 * Solidity source of the test token deployed on the local chain: a minimal ERC-20 with USDC's 6 decimals.
 * Kept as a TypeScript string so `compile-token.ts` finds it the same way from `src/` and from `dist/`.
 * Edit it, then regenerate `test-usdc.artifact.ts` (see compile-token.ts); a test fails until you do.
 */
export const TEST_USDC_SOURCE = `// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

contract TestUsdc {
    string public constant name = "USD Coin (test)";
    string public constant symbol = "USDC";
    uint8 public constant decimals = 6;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;

    event Transfer(address indexed from, address indexed to, uint256 value);

    constructor(address holder, uint256 supply) {
        _mint(holder, supply);
    }

    /// Anyone may mint: this token only ever lives on throwaway local chains.
    function mint(address to, uint256 value) external {
        _mint(to, value);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    /// Several Transfer logs in one transaction, to exercise log indexes within a block.
    function transferBatch(address[] calldata to, uint256[] calldata values) external returns (bool) {
        require(to.length == values.length, "TestUsdc: length mismatch");
        for (uint256 i = 0; i < to.length; i++) _transfer(msg.sender, to[i], values[i]);
        return true;
    }

    function _mint(address to, uint256 value) private {
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function _transfer(address from, address to, uint256 value) private {
        require(to != address(0), "ERC20: transfer to the zero address");
        require(balanceOf[from] >= value, "ERC20: transfer amount exceeds balance");
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}
`;
