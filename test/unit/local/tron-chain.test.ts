import { createTronChain } from '../../../infra/local/tron/chain.js';

// Base58 TRON addresses (0x41 ‖ 20 bytes): a token and two recipients.
const TOKEN = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const ALICE = 'TLCuBEirVzB6V4menLZKw1jfBTFMZbuKq7';
const BOB = 'TPL66VK2gCXNCD7EJg9pgJRfqcRazjhUZY';

describe('the local TRON node', () => {
  it("numbers a block's events within each transaction, as TronGrid's event_index does", () => {
    const chain = createTronChain({ tokens: [TOKEN] });
    const first = chain.transfer(TOKEN, ALICE, 1_000_000n);
    const second = chain.transfer(TOKEN, BOB, 2_000_000n);
    const [block] = chain.mine(1);
    expect(block?.events.map((e) => [e.txID, e.index, e.value])).toEqual([
      [first, 0, 1_000_000n],
      [second, 0, 2_000_000n],
    ]);
    expect([chain.tokenBalance(TOKEN, ALICE), chain.tokenBalance(TOKEN, BOB)]).toEqual([1_000_000n, 2_000_000n]);
  });
});
