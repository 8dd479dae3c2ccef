pragma circom 2.1.0;

// VALID_SPEND: a withdraw or a merge of notes of one owner and one asset, without revealing their
// openings (docs/notes.md section 11). One circuit serves both actions: a withdraw spends one note,
// sends `public_value` out of the pool and may keep the rest as a change note; a merge spends 2 to
// `inputs` notes into one output with `public_value` = 0. The plain TypeScript reference of the same
// rules is packages/notes/src/spend-rules.ts.

include "circomlib/circuits/poseidon.circom";
include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";

// Domain constants of the note hashes (docs/notes.md section 2).
function SPEND_DOMAIN_OWNER() { return 32; }
function SPEND_DOMAIN_INNER() { return 33; }
function SPEND_DOMAIN_COMMITMENT() { return 34; }
function SPEND_DOMAIN_TAG() { return 35; }

// A note of `owner` holding `value` of `asset_id` with this blinding: its commitment and tag.
template SpendNote() {
    signal input owner;
    signal input asset_id;
    signal input blinding;
    signal input value;
    signal output commitment;
    signal output tag;

    component inner = Poseidon(3);
    inner.inputs[0] <== SPEND_DOMAIN_INNER();
    inner.inputs[1] <== asset_id;
    inner.inputs[2] <== blinding;
    component leaf = Poseidon(4);
    leaf.inputs[0] <== SPEND_DOMAIN_COMMITMENT();
    leaf.inputs[1] <== owner;
    leaf.inputs[2] <== inner.out;
    leaf.inputs[3] <== value;
    commitment <== leaf.out;
    component use = Poseidon(3);
    use.inputs[0] <== SPEND_DOMAIN_TAG();
    use.inputs[1] <== owner;
    use.inputs[2] <== inner.out;
    tag <== use.out;
}

template ValidSpend(inputs) {
    // Public inputs, in this order (src/spend-public-inputs.ts).
    signal input request_binding;           // spendRequestBinding: action, tree ids, recipient
    signal input asset_id;
    signal input public_value;              // what leaves the pool: the withdrawn amount, 0 for a merge
    signal input output_commitment;         // the change or merged note; 0 for none
    signal input input_commitments[inputs]; // 0 for an unused slot
    signal input note_use_tags[inputs];     // 0 for an unused slot

    // Private inputs: the owner's key and the openings.
    signal input spending_key;
    signal input used[inputs];
    signal input blindings[inputs];
    signal input values[inputs];
    signal input output_blinding;
    signal input output_value;

    // One owner for every note: the key's owner commitment, so the proof shows ownership.
    component owner = Poseidon(2);
    owner.inputs[0] <== SPEND_DOMAIN_OWNER();
    owner.inputs[1] <== spending_key;

    component notes[inputs];
    component valueBits[inputs];
    var total = 0;
    for (var k = 0; k < inputs; k++) {
        used[k] * (1 - used[k]) === 0;
        // An unused slot holds nothing and shows 0 for its commitment and tag.
        values[k] * (1 - used[k]) === 0;
        valueBits[k] = Num2Bits(64);
        valueBits[k].in <== values[k];
        notes[k] = SpendNote();
        notes[k].owner <== owner.out;
        notes[k].asset_id <== asset_id;
        notes[k].blinding <== blindings[k];
        notes[k].value <== values[k];
        notes[k].commitment * used[k] === input_commitments[k];
        notes[k].tag * used[k] === note_use_tags[k];
        total += values[k];
    }

    // Amounts are u64; at most 8 of them sum below 2^67, far from wrapping the field.
    component publicBits = Num2Bits(64);
    publicBits.in <== public_value;
    component outputBits = Num2Bits(64);
    outputBits.in <== output_value;
    // No value created: what the inputs hold is what leaves plus what stays.
    total === output_value + public_value;

    // The output: a note of the same owner and asset, absent (commitment 0) when it holds nothing.
    component out = SpendNote();
    out.owner <== owner.out;
    out.asset_id <== asset_id;
    out.blinding <== output_blinding;
    out.value <== output_value;
    component empty = IsZero();
    empty.in <== output_value;
    out.commitment * (1 - empty.out) === output_commitment;

    // The binding enters no other constraint; squaring it gives it one, so the proof is bound to it.
    signal binding_squared <== request_binding * request_binding;
}
