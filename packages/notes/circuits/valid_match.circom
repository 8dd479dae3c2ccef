pragma circom 2.1.0;

// VALID_MATCH as deployed: up to 4 fills per leg, the input commitment public (docs/notes.md
// section 10). Built by packages/notes/scripts/build-circuit.ts from the repository root.
include "lib/valid_match.circom";

component main {public [batch_binding, base_asset, quote_asset, price_scale, clearing_price, side, input_anchor, note_use_tag, received_commitment, change_commitment, fill_tags]} = ValidMatch(4, 0);
