pragma circom 2.1.0;

// VALID_INPUT: "I can spend the note `note_commitment`, which is a leaf of shard `tree_id` under
// `merkle_root`; its note-use tag is `note_use_tag`, it holds asset `asset_id`, and this proof is
// issued for `binding`." Documented in docs/notes.md; the hashes mirror packages/notes/src/hash.ts.
//
// Built by packages/notes/scripts/build-circuit.ts, from the repository root so that circom finds
// circomlib under node_modules.

include "circomlib/circuits/poseidon.circom";
include "circomlib/circuits/bitify.circom";

// Domain constants of the note hashes (docs/notes.md section 2). 32 is fixed by the interface.
function DOMAIN_OWNER() { return 32; }
function DOMAIN_INNER() { return 33; }
function DOMAIN_COMMITMENT() { return 34; }
function DOMAIN_TAG() { return 35; }

// One level of the inclusion path: hashes `child` with `sibling`, child on the right when bit = 1.
template PathLevel() {
    signal input child;
    signal input sibling;
    signal input bit;
    signal output parent;

    bit * (1 - bit) === 0;
    // swap = bit * (sibling - child): left = child + swap, right = sibling - swap.
    signal swap <== bit * (sibling - child);
    component h = Poseidon(2);
    h.inputs[0] <== child + swap;
    h.inputs[1] <== sibling - swap;
    parent <== h.out;
}

template ValidInput(depth) {
    // Public inputs, in this order (snarkjs lists public inputs in declaration order).
    signal input note_commitment;
    signal input merkle_root;
    signal input tree_id;
    signal input note_use_tag;
    signal input asset_id;
    signal input binding;

    // Private inputs: the note's opening and its inclusion path (leaf level first).
    signal input spending_key;
    signal input blinding;
    signal input value;
    signal input path_siblings[depth];
    signal input path_bits[depth];

    component owner = Poseidon(2);
    owner.inputs[0] <== DOMAIN_OWNER();
    owner.inputs[1] <== spending_key;

    component inner = Poseidon(3);
    inner.inputs[0] <== DOMAIN_INNER();
    inner.inputs[1] <== asset_id;
    inner.inputs[2] <== blinding;

    // A note's value is a u64, as on the wire.
    component valueBits = Num2Bits(64);
    valueBits.in <== value;

    component commitment = Poseidon(4);
    commitment.inputs[0] <== DOMAIN_COMMITMENT();
    commitment.inputs[1] <== owner.out;
    commitment.inputs[2] <== inner.out;
    commitment.inputs[3] <== value;
    commitment.out === note_commitment;

    component tag = Poseidon(3);
    tag.inputs[0] <== DOMAIN_TAG();
    tag.inputs[1] <== owner.out;
    tag.inputs[2] <== inner.out;
    tag.out === note_use_tag;

    component levels[depth];
    for (var i = 0; i < depth; i++) {
        levels[i] = PathLevel();
        levels[i].child <== i == 0 ? commitment.out : levels[i - 1].parent;
        levels[i].sibling <== path_siblings[i];
        levels[i].bit <== path_bits[i];
    }
    levels[depth - 1].parent === merkle_root;

    // tree_id and binding enter no other constraint; squaring them gives each a constraint of its
    // own, so the statement visibly depends on them (they are bound through the verifying key).
    signal tree_id_squared <== tree_id * tree_id;
    signal binding_squared <== binding * binding;
}

component main {public [note_commitment, merkle_root, tree_id, note_use_tag, asset_id, binding]} = ValidInput(20);
