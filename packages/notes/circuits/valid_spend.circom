pragma circom 2.1.0;

// VALID_SPEND as deployed: up to 8 input notes (MERGE_INPUTS_MAX), one output (docs/notes.md
// section 11). Built by packages/notes/scripts/build-circuit.ts from the repository root.
include "lib/valid_spend.circom";

component main {public [request_binding, asset_id, public_value, output_commitment, input_commitments, note_use_tags]} = ValidSpend(8);
