pragma circom 2.1.0;

// Prototype, measured and not chosen (docs/notes.md section 10): the same leg with the input proved
// a leaf of a depth-20 note tree under the public merkle root, so the chain never sees which leaf.
include "../lib/valid_match.circom";

component main {public [batch_binding, base_asset, quote_asset, price_scale, clearing_price, side, input_anchor, note_use_tag, received_commitment, change_commitment, fill_tags]} = ValidMatch(4, 20);
