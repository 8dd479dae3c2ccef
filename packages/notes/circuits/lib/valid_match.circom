pragma circom 2.1.0;

// VALID_MATCH, one order's part in one settlement batch (a "leg": one input note, what the fill bought,
// the change), proved per leg and verified per batch. Documented in docs/notes.md section 10; the
// plain TypeScript reference of the same rules is packages/notes/src/match-rules.ts.
//
// `depth` = 0: the input's note commitment is a public input and the chain checks it is a leaf.
// `depth` > 0: the input is proved a leaf under the public `merkle_root` here (a prototype, measured
// and not chosen: docs/notes.md section 10).

include "circomlib/circuits/poseidon.circom";
include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";

// Domain constants of the note hashes (docs/notes.md section 2), and of the fill tag.
function DOMAIN_INNER() { return 33; }
function DOMAIN_COMMITMENT() { return 34; }
function DOMAIN_TAG() { return 35; }
function DOMAIN_CHANGE_BLINDING() { return 36; }
function DOMAIN_FILL_BLINDING() { return 37; }
function DOMAIN_FILL_TAG() { return 40; }

// A note of `owner` holding `value` of `asset_id`, blinding Poseidon(domain, parent_inner): the
// fill and change notes of decisions section 2 (notes deriveFillNote / deriveChangeNote). The
// public commitment is 0 for a note of value 0, which the chain never appends.
template ChildNote(domain) {
    signal input owner;
    signal input parent_inner;
    signal input asset_id;
    signal input value;
    signal output commitment;

    component blinding = Poseidon(2);
    blinding.inputs[0] <== domain;
    blinding.inputs[1] <== parent_inner;
    component inner = Poseidon(3);
    inner.inputs[0] <== DOMAIN_INNER();
    inner.inputs[1] <== asset_id;
    inner.inputs[2] <== blinding.out;
    component leaf = Poseidon(4);
    leaf.inputs[0] <== DOMAIN_COMMITMENT();
    leaf.inputs[1] <== owner;
    leaf.inputs[2] <== inner.out;
    leaf.inputs[3] <== value;
    component empty = IsZero();
    empty.in <== value;
    commitment <== leaf.out * (1 - empty.out);
}

// One fill of the leg against one counterparty: base_amount of base for quote_amount of quote, with
// quote_amount = floor(base_amount x price / scale) (decisions section 2). Its tag, public, is
// Poseidon(40, batch_binding, salt, base_amount, quote_amount); the counterparty's leg shows the
// same tag, so the chain pairs them. An unused slot has used = 0, moves nothing and shows tag 0.
template FillSlot() {
    signal input batch_binding;
    signal input price;
    signal input scale;
    signal input used;
    signal input base_amount;
    signal input quote_amount;
    signal input remainder;
    signal input salt;
    signal output tag;

    used * (1 - used) === 0;
    base_amount * (1 - used) === 0;
    quote_amount * (1 - used) === 0;
    component baseBits = Num2Bits(64);
    baseBits.in <== base_amount;
    component quoteBits = Num2Bits(64);
    quoteBits.in <== quote_amount;
    // Floor: base x price = quote x scale + remainder with 0 <= remainder < scale. Every factor is
    // below 2^64, so neither side wraps around the field.
    signal product <== base_amount * price;
    product === quote_amount * scale + remainder;
    component remainderBits = Num2Bits(64);
    remainderBits.in <== remainder;
    component belowScale = Num2Bits(64);
    belowScale.in <== scale - 1 - remainder;

    component hash = Poseidon(5);
    hash.inputs[0] <== DOMAIN_FILL_TAG();
    hash.inputs[1] <== batch_binding;
    hash.inputs[2] <== salt;
    hash.inputs[3] <== base_amount;
    hash.inputs[4] <== quote_amount;
    tag <== hash.out * used;
}

// One level of an inclusion path, as in valid_input.circom.
template MatchPathLevel() {
    signal input child;
    signal input sibling;
    signal input bit;
    signal output parent;

    bit * (1 - bit) === 0;
    signal swap <== bit * (sibling - child);
    component h = Poseidon(2);
    h.inputs[0] <== child + swap;
    h.inputs[1] <== sibling - swap;
    parent <== h.out;
}

template ValidMatch(fills, depth) {
    // Public inputs, in this order (src/match-public-inputs.ts).
    signal input batch_binding;     // Poseidon(39, market, batch_seq, deadline_slot)
    signal input base_asset;
    signal input quote_asset;
    signal input price_scale;
    signal input clearing_price;
    signal input side;              // 0 bid (pays quote, receives base), 1 ask
    signal input input_anchor;      // depth 0: the input's note commitment; else the merkle root
    signal input note_use_tag;
    signal input received_commitment;
    signal input change_commitment;
    signal input fill_tags[fills];

    // Private inputs: the input's opening as the enclave holds it, and the fills.
    signal input owner;
    signal input inner;
    signal input value;
    signal input used[fills];
    signal input base_amounts[fills];
    signal input quote_amounts[fills];
    signal input remainders[fills];
    signal input salts[fills];
    signal input path_siblings[depth];
    signal input path_bits[depth];

    side * (1 - side) === 0;
    component valueBits = Num2Bits(64);
    valueBits.in <== value;

    // The input: its opening gives its commitment, and its tag is derived as VALID_INPUT derives it.
    component commitment = Poseidon(4);
    commitment.inputs[0] <== DOMAIN_COMMITMENT();
    commitment.inputs[1] <== owner;
    commitment.inputs[2] <== inner;
    commitment.inputs[3] <== value;
    component tag = Poseidon(3);
    tag.inputs[0] <== DOMAIN_TAG();
    tag.inputs[1] <== owner;
    tag.inputs[2] <== inner;
    tag.out === note_use_tag;

    if (depth == 0) {
        commitment.out === input_anchor;
    } else {
        component levels[depth];
        for (var i = 0; i < depth; i++) {
            levels[i] = MatchPathLevel();
            levels[i].child <== i == 0 ? commitment.out : levels[i - 1].parent;
            levels[i].sibling <== path_siblings[i];
            levels[i].bit <== path_bits[i];
        }
        levels[depth - 1].parent === input_anchor;
    }

    // The fills, and what they add up to.
    component slots[fills];
    var base_total = 0;
    var quote_total = 0;
    for (var k = 0; k < fills; k++) {
        slots[k] = FillSlot();
        slots[k].batch_binding <== batch_binding;
        slots[k].price <== clearing_price;
        slots[k].scale <== price_scale;
        slots[k].used <== used[k];
        slots[k].base_amount <== base_amounts[k];
        slots[k].quote_amount <== quote_amounts[k];
        slots[k].remainder <== remainders[k];
        slots[k].salt <== salts[k];
        slots[k].tag === fill_tags[k];
        base_total += base_amounts[k];
        quote_total += quote_amounts[k];
    }

    // A bid pays quote and receives base; an ask the reverse. The change stays in the asset paid.
    signal paid <== quote_total + side * (base_total - quote_total);
    signal received <== base_total + side * (quote_total - base_total);
    signal received_asset <== base_asset + side * (quote_asset - base_asset);
    signal change_asset <== quote_asset + side * (base_asset - quote_asset);
    // Both outputs are u64 and the change is not negative: the leg creates no value.
    component receivedBits = Num2Bits(64);
    receivedBits.in <== received;
    component changeBits = Num2Bits(64);
    changeBits.in <== value - paid;

    component fillNote = ChildNote(DOMAIN_FILL_BLINDING());
    fillNote.owner <== owner;
    fillNote.parent_inner <== inner;
    fillNote.asset_id <== received_asset;
    fillNote.value <== received;
    fillNote.commitment === received_commitment;
    component changeNote = ChildNote(DOMAIN_CHANGE_BLINDING());
    changeNote.owner <== owner;
    changeNote.parent_inner <== inner;
    changeNote.asset_id <== change_asset;
    changeNote.value <== value - paid;
    changeNote.commitment === change_commitment;

    // batch_binding enters the fill tags; squaring it also gives it a constraint of its own.
    signal binding_squared <== batch_binding * batch_binding;
}
