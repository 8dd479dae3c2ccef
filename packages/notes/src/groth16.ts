import { randomBytes } from 'node:crypto';
import { assert } from '@venue/protocol';
import { buildBn128, type Curve } from 'ffjavascript';
import type { VerificationKeyJson } from './artifacts.ts';
import { BASE_FIELD_MODULUS, FIELD_MODULUS } from './field.ts';
import type { ProofCoordinates } from './proof-bytes.ts';

/**
 * Groth16 verification over BN254 on ffjavascript's curve (the one snarkjs uses), one proof at a
 * time or many at once (docs/notes.md section 8).
 *
 * A proof (A, B, C) for public inputs x is valid when e(A, B) = e(alpha, beta) e(X, gamma) e(C, delta)
 * with X = IC0 + sum x_j IC_j. One proof costs three Miller loops and one final exponentiation
 * (e(alpha, beta) is computed once per key). A batch of n proofs, each weighted by a fresh random
 * 128-bit scalar r_i, is checked by one equation:
 *
 *   prod_i e(r_i A_i, B_i) * e(-R alpha, beta) * e(-S_X, gamma) * e(-S_C, delta) = 1,
 *   R = sum r_i,  S_X = sum r_i X_i = R IC0 + sum_j (sum_i r_i x_ij) IC_j,  S_C = sum r_i C_i,
 *
 * which costs n + 3 Miller loops and a single final exponentiation. When any proof is invalid its
 * factor is a non-identity element of the order-r target group raised to r_i, and the product is
 * the identity for at most one value of r_i modulo r: the batch passes with probability at most
 * 2^-128 over the choice of r_i. Soundness needs every point in its prime-order group: G1 has
 * cofactor 1 (on the curve is enough); B is checked to lie in the order-r subgroup of G2 (isInG2).
 */

/** Random weights are this many bits (the batch's soundness error is 2^-WEIGHT_BITS). */
const WEIGHT_BITS = 128;

/** Below this many points, separate scalar multiplications beat ffjavascript's multi-exponentiation. */
const MULTI_EXP_MIN = 16;

/** A failing subset this small is checked proof by proof rather than halved again. */
const BISECT_LEAF_MAX = 4;

/** A proof decoded to curve points (affine, Montgomery form, as ffjavascript keeps them). */
export interface ProofPoints {
  readonly a: Uint8Array;
  readonly b: Uint8Array;
  readonly c: Uint8Array;
}

/** A verification key decoded once, with what every verification reuses precomputed. */
export interface PreparedKey {
  readonly curve: Curve;
  readonly nPublic: number;
  readonly alpha: Uint8Array;
  /** IC0..ICn, affine: X = IC0 + sum x_j IC_j. */
  readonly icPoints: readonly Uint8Array[];
  readonly preparedBeta: Uint8Array;
  readonly preparedGamma: Uint8Array;
  readonly preparedDelta: Uint8Array;
  /** e(alpha, beta), the right-hand side of a single verification. */
  readonly alphaBeta: Uint8Array;
}

export interface BatchItem {
  readonly proof: ProofPoints;
  readonly inputs: readonly bigint[];
}

/** A single-threaded BN254 curve: no helper threads, so nothing outlives its user. */
export function loadCurve(): Promise<Curve> {
  return buildBn128(true);
}

export function prepareKey(curve: Curve, vkey: VerificationKeyJson): PreparedKey {
  assert(vkey.protocol === 'groth16' && vkey.curve === 'bn128', 'verification key must be groth16 on bn128');
  assert(vkey.IC.length === vkey.nPublic + 1, 'verification key must have nPublic + 1 IC points');
  const { G1, G2 } = curve;
  const g1 = (p: readonly string[]) => G1.toAffine(G1.fromObject(p.map(BigInt)));
  const g2 = (p: readonly (readonly string[])[]) => G2.toAffine(G2.fromObject(p.map((c) => c.map(BigInt))));
  const alpha = g1(vkey.vk_alpha_1);
  const beta = g2(vkey.vk_beta_2);
  const icPoints = vkey.IC.map(g1);
  const preparedBeta = curve.prepareG2(G2.toJacobian(beta));
  return {
    curve,
    nPublic: vkey.nPublic,
    alpha,
    icPoints,
    preparedBeta,
    preparedGamma: curve.prepareG2(G2.toJacobian(g2(vkey.vk_gamma_2))),
    preparedDelta: curve.prepareG2(G2.toJacobian(g2(vkey.vk_delta_2))),
    alphaBeta: curve.finalExponentiation(
      curve.millerLoop(curve.prepareG1(G1.toJacobian(alpha)), preparedBeta),
    ),
  };
}

/**
 * Coordinates to curve points, or null when the proof is not well formed: a point off its curve,
 * a point at infinity (never produced by an honest prover), or B outside the order-r subgroup.
 */
export function proofPoints(curve: Curve, coordinates: ProofCoordinates): ProofPoints | null {
  const { G1, G2 } = curve;
  const { a: ca, b: cb, c: cc } = coordinates;
  if (isOrigin([ca[0], ca[1]]) || isOrigin([cc[0], cc[1]]) || isOrigin([...cb[0], ...cb[1]])) return null;
  const a = G1.fromObject([ca[0], ca[1]]);
  const c = G1.fromObject([cc[0], cc[1]]);
  const b = G2.fromObject([
    [cb[0][0], cb[0][1]],
    [cb[1][0], cb[1][1]],
  ]);
  if (!G1.isValid(a) || !G1.isValid(c) || !G2.isValid(b)) return null;
  if (!isInG2(curve, b, cb)) return null;
  return { a, b, c };
}

/** BN254's parameter u: p, r and the trace are polynomials in u. */
const BN_U = 4965661367192848881n;
/** psi acts on G2 as multiplication by p, which is 6u^2 modulo r. */
const SIX_U_SQUARED = 6n * BN_U * BN_U;

type Fp2 = readonly [bigint, bigint];

function fp2Mul(a: Fp2, b: Fp2): Fp2 {
  const p = BASE_FIELD_MODULUS;
  return [(((a[0] * b[0] - a[1] * b[1]) % p) + p) % p, (a[0] * b[1] + a[1] * b[0]) % p];
}

function fp2Pow(base: Fp2, exponent: bigint): Fp2 {
  let result: Fp2 = [1n, 0n];
  let square = base;
  for (let e = exponent; e > 0n; e >>= 1n) {
    if (e & 1n) result = fp2Mul(result, square);
    square = fp2Mul(square, square);
  }
  return result;
}

function fp2Conjugate(a: Fp2): Fp2 {
  return [a[0], (BASE_FIELD_MODULUS - a[1]) % BASE_FIELD_MODULUS];
}

/** xi = 9 + i defines the twist E': y^2 = x^3 + 3/xi carrying G2. */
const XI: Fp2 = [9n, 1n];
const PSI_X = fp2Pow(XI, (BASE_FIELD_MODULUS - 1n) / 3n);
const PSI_Y = fp2Pow(XI, (BASE_FIELD_MODULUS - 1n) / 2n);

/**
 * psi, the endomorphism of E' obtained by untwisting, applying the p-power Frobenius and twisting
 * back: (x, y) -> (conj(x) xi^((p-1)/3), conj(y) xi^((p-1)/2)) in ffjavascript's coordinates (real
 * part first). On G2 it acts as multiplication by p.
 */
export function psi(point: readonly [Fp2, Fp2]): [Fp2, Fp2] {
  return [fp2Mul(fp2Conjugate(point[0]), PSI_X), fp2Mul(fp2Conjugate(point[1]), PSI_Y)];
}

/**
 * Whether a point already known to be on E' lies in G2, the order-r subgroup: psi(Q) = [6u^2]Q
 * (the test arkworks uses for BN254, from eprint 2022/352, section 4.3). It costs a 127-bit scalar
 * multiplication instead of the 254-bit [r]Q = 0, and the tests compare it with that definition.
 */
export function isInG2(curve: Curve, point: Uint8Array, coordinates: readonly [Fp2, Fp2]): boolean {
  const { G2 } = curve;
  const multiple = G2.timesScalar(point, SIX_U_SQUARED);
  if (G2.isZero(multiple)) return false; // psi(Q) is O only for Q = O, which is refused earlier
  const [x, y] = G2.toObject(G2.toAffine(multiple)) as [Fp2, Fp2];
  const [px, py] = psi(coordinates);
  return x[0] === px[0] && x[1] === px[1] && y[0] === py[0] && y[1] === py[1];
}

function isOrigin(words: readonly bigint[]): boolean {
  return words.every((w) => w === 0n);
}

function inputsAreValid(key: PreparedKey, inputs: readonly bigint[]): boolean {
  return inputs.length === key.nPublic && inputs.every((x) => x >= 0n && x < FIELD_MODULUS);
}

/**
 * sum scalars[i] * points[i] (Jacobian). ffjavascript's multi-exponentiation has a fixed cost of
 * about 3 ms, so below MULTI_EXP_MIN points one scalar multiplication per point is faster.
 */
async function combination(
  key: PreparedKey,
  points: readonly Uint8Array[],
  scalars: readonly bigint[],
  scalarBytes: number,
): Promise<Uint8Array> {
  const { G1 } = key.curve;
  if (points.length < MULTI_EXP_MIN) return combinationNow(key, points, scalars);
  const bases = new Uint8Array(points.length * 64);
  points.forEach((p, i) => {
    bases.set(p, i * 64);
  });
  return G1.multiExpAffine(bases, scalarsLE(scalars, scalarBytes));
}

/** The same sum by one scalar multiplication per point: synchronous (multiExpAffine is not). */
function combinationNow(
  key: PreparedKey,
  points: readonly Uint8Array[],
  scalars: readonly bigint[],
): Uint8Array {
  const { G1 } = key.curve;
  let sum = G1.zero;
  points.forEach((point, i) => {
    const scalar = scalars[i] ?? 0n;
    if (scalar !== 0n) sum = G1.add(sum, G1.timesScalar(point, scalar));
  });
  return sum;
}

/** X = IC0 + sum x_j IC_j (Jacobian). */
function inputCombination(key: PreparedKey, inputs: readonly bigint[]): Uint8Array {
  const { G1 } = key.curve;
  let sum = G1.toJacobian(key.icPoints[0] ?? G1.zero);
  inputs.forEach((x, j) => {
    const base = key.icPoints[j + 1];
    assert(base !== undefined, 'one IC point per public input');
    if (x !== 0n) sum = G1.add(sum, G1.timesScalar(base, x));
  });
  return sum;
}

/** Checks one proof: three Miller loops and one final exponentiation. */
export function verifyOne(key: PreparedKey, proof: ProofPoints, inputs: readonly bigint[]): boolean {
  if (!inputsAreValid(key, inputs)) return false;
  const { curve } = key;
  const { G1, G2 } = curve;
  const x = inputCombination(key, inputs);
  let product = curve.millerLoop(
    curve.prepareG1(G1.toJacobian(proof.a)),
    curve.prepareG2(G2.toJacobian(proof.b)),
  );
  product = curve.Gt.mul(product, curve.millerLoop(curve.prepareG1(G1.neg(x)), key.preparedGamma));
  product = curve.Gt.mul(
    product,
    curve.millerLoop(curve.prepareG1(G1.neg(G1.toJacobian(proof.c))), key.preparedDelta),
  );
  return curve.Gt.eq(curve.finalExponentiation(product), key.alphaBeta);
}

/** A fresh non-zero weight of WEIGHT_BITS bits from node:crypto. */
export function randomWeight(): bigint {
  for (;;) {
    const weight = BigInt(`0x${randomBytes(WEIGHT_BITS / 8).toString('hex')}`);
    if (weight !== 0n) return weight;
  }
}

function scalarsLE(values: readonly bigint[], bytes: number): Uint8Array {
  const out = new Uint8Array(values.length * bytes);
  values.forEach((value, i) => {
    let v = value;
    for (let k = 0; k < bytes; k++) {
      out[i * bytes + k] = Number(v & 0xffn);
      v >>= 8n;
    }
    assert(v === 0n, 'scalar wider than its slot');
  });
  return out;
}

/** A proof with its weight and its own Miller loop ML(r_i A_i, B_i), computed once. */
interface Weighted {
  readonly index: number;
  readonly item: BatchItem;
  readonly weight: bigint;
  readonly loop: Uint8Array;
}

/** R = sum r_i and, per public input j, sum_i r_i x_ij (mod r): the scalars of S_X. */
function subsetScalars(key: PreparedKey, subset: readonly Weighted[]): bigint[] {
  const r = FIELD_MODULUS;
  let weightSum = 0n;
  const inputSums: bigint[] = new Array<bigint>(key.nPublic).fill(0n);
  for (const { item, weight } of subset) {
    weightSum += weight;
    item.inputs.forEach((x, j) => {
      inputSums[j] = ((inputSums[j] ?? 0n) + weight * x) % r;
    });
  }
  return [weightSum % r, ...inputSums];
}

/** The pairing side of the batch equation, given S_X and S_C (Jacobian). */
function subsetEquation(
  key: PreparedKey,
  subset: readonly Weighted[],
  weightSum: bigint,
  sumX: Uint8Array,
  sumC: Uint8Array,
): boolean {
  const { curve } = key;
  const { G1 } = curve;
  let product = curve.millerLoop(
    curve.prepareG1(G1.neg(G1.timesScalar(key.alpha, weightSum))),
    key.preparedBeta,
  );
  product = curve.Gt.mul(product, curve.millerLoop(curve.prepareG1(G1.neg(sumX)), key.preparedGamma));
  product = curve.Gt.mul(product, curve.millerLoop(curve.prepareG1(G1.neg(sumC)), key.preparedDelta));
  for (const { loop } of subset) product = curve.Gt.mul(product, loop);
  return curve.Gt.eq(curve.finalExponentiation(product), curve.Gt.one);
}

/**
 * The batch equation for a subset of weighted proofs (see the top of this file). The per-proof
 * Miller loops are reused, so a subset costs three Miller loops, two small multi-exponentiations
 * and one final exponentiation, whatever its size.
 */
async function subsetHolds(key: PreparedKey, subset: readonly Weighted[]): Promise<boolean> {
  const scalars = subsetScalars(key, subset);
  const sumX = await combination(key, key.icPoints, scalars, 32);
  const sumC = await combination(
    key,
    subset.map(({ item }) => item.proof.c),
    subset.map((w) => w.weight),
    WEIGHT_BITS / 8,
  );
  return subsetEquation(key, subset, scalars[0] ?? 0n, sumX, sumC);
}

/** subsetHolds without the multi-exponentiation, so synchronous (verifyEachNow). */
function subsetHoldsNow(key: PreparedKey, subset: readonly Weighted[]): boolean {
  const scalars = subsetScalars(key, subset);
  const sumX = combinationNow(key, key.icPoints, scalars);
  const sumC = combinationNow(
    key,
    subset.map(({ item }) => item.proof.c),
    subset.map((w) => w.weight),
  );
  return subsetEquation(key, subset, scalars[0] ?? 0n, sumX, sumC);
}

/**
 * The search for the bad proofs, as a generator: it yields each subset whose equation it needs and
 * is resumed with the answer, and marks the bad proofs false in `results`. One search serves the
 * asynchronous verifyEach and the synchronous verifyEachNow.
 */
function* bisect(
  subset: readonly Weighted[],
  knownBad: boolean,
  results: boolean[],
): Generator<readonly Weighted[], void, boolean> {
  if (subset.length === 0) return;
  if (!knownBad && (yield subset)) return;
  const [only] = subset;
  if (subset.length === 1 && only !== undefined) {
    results[only.index] = false;
    return;
  }
  if (subset.length <= BISECT_LEAF_MAX) {
    // Few left: halving would cost more checks than looking at each one.
    for (const one of subset) if (!(yield [one])) results[one.index] = false;
    return;
  }
  const left = subset.slice(0, subset.length >> 1);
  const right = subset.slice(subset.length >> 1);
  if (yield left) {
    yield* bisect(right, true, results); // the whole failed and the left half holds: the right has a bad proof
  } else {
    yield* bisect(left, true, results);
    yield* bisect(right, false, results);
  }
}

/** The proofs whose inputs are field elements, weighed; the others are marked false. */
function weighValid(
  key: PreparedKey,
  items: readonly BatchItem[],
  weights: readonly bigint[],
  results: boolean[],
): Weighted[] {
  assert(weights.length === items.length, 'one weight per proof');
  return weigh(
    key,
    items.filter((_, i) => results[i]),
    weights.filter((_, i) => results[i]),
    items.map((_, i) => i).filter((i) => results[i]),
  );
}

/**
 * Checks many proofs, returning one answer per proof. All proofs are first checked as one batch;
 * when it fails, the set is halved and each half checked again with the same weights (bisection),
 * down to single proofs. A single proof's equation is exact: its weight is not zero modulo r, so
 * it holds only when the proof itself is valid. Exactly the bad proofs come back false. Over at
 * most 2n subset checks, the chance that a bad proof passes is at most 2n * 2^-128.
 */
export async function verifyEach(
  key: PreparedKey,
  items: readonly BatchItem[],
  weights: readonly bigint[] = items.map(randomWeight),
): Promise<boolean[]> {
  const results = items.map((item) => inputsAreValid(key, item.inputs));
  const search = bisect(weighValid(key, items, weights, results), false, results);
  let step = search.next();
  while (!step.done) step = search.next(await subsetHolds(key, step.value));
  return results;
}

/**
 * verifyEach, synchronously: the same equations and search, with one scalar multiplication per
 * point instead of ffjavascript's (asynchronous) multi-exponentiation. For a caller that must
 * answer in the same turn, as the chain simulator lands a batch (docs/chain-sim.md section 6).
 */
export function verifyEachNow(
  key: PreparedKey,
  items: readonly BatchItem[],
  weights: readonly bigint[] = items.map(randomWeight),
): boolean[] {
  const results = items.map((item) => inputsAreValid(key, item.inputs));
  const search = bisect(weighValid(key, items, weights, results), false, results);
  let step = search.next();
  while (!step.done) step = search.next(subsetHoldsNow(key, step.value));
  return results;
}

/** True when every proof is valid: one batch equation, no search for the bad ones. */
export async function verifyBatch(
  key: PreparedKey,
  items: readonly BatchItem[],
  weights: readonly bigint[] = items.map(randomWeight),
): Promise<boolean> {
  if (!items.every((item) => inputsAreValid(key, item.inputs))) return false;
  return subsetHolds(
    key,
    weigh(
      key,
      items,
      weights,
      items.map((_, i) => i),
    ),
  );
}

/** Pairs each proof with its weight and computes its Miller loop ML(r_i A_i, B_i). */
function weigh(
  key: PreparedKey,
  items: readonly BatchItem[],
  weights: readonly bigint[],
  indices: readonly number[],
): Weighted[] {
  assert(weights.length === items.length && indices.length === items.length, 'one weight per proof');
  const { curve } = key;
  const { G1, G2 } = curve;
  return items.map((item, i) => {
    const weight = weights[i] ?? 0n;
    assert(weight > 0n && weight < 1n << BigInt(WEIGHT_BITS), 'weights are non-zero 128-bit scalars');
    const loop = curve.millerLoop(
      curve.prepareG1(G1.timesScalar(item.proof.a, weight)),
      curve.prepareG2(G2.toJacobian(item.proof.b)),
    );
    return { index: indices[i] ?? i, item, weight, loop };
  });
}
