pragma circom 2.1.0;

// VALID_MATCH_WIDE: the same circuit as valid_match.circom with 16 fill slots, for a leg that
// fills against 5 to 16 counterparties in one batch (docs/notes.md section 10.2). Built by
// packages/notes/scripts/build-circuit.ts from the repository root.
include "lib/valid_match.circom";

component main {public [batch_binding, base_asset, quote_asset, price_scale, clearing_price, side, input_anchor, note_use_tag, received_commitment, change_commitment, fill_tags]} = ValidMatch(16, 0);
