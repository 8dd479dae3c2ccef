// The verification arithmetic without a real proof: the fast G2 membership test against its
// definition ([r]Q = O), and the refusal of malformed proof points.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { isInG2, loadCurve, proofPoints, psi } from '../src/groth16.ts';

const curve = await loadCurve();
after(() => curve.terminate());
const { G1, G2 } = curve;
const F2 = (curve as unknown as { F2: Field2 }).F2;

interface Field2 {
  fromObject(value: readonly bigint[]): Uint8Array;
  add(a: Uint8Array, b: Uint8Array): Uint8Array;
  mul(a: Uint8Array, b: Uint8Array): Uint8Array;
  square(a: Uint8Array): Uint8Array;
  isSquare(a: Uint8Array): boolean;
  sqrt(a: Uint8Array): Uint8Array;
}
type Fp2 = [bigint, bigint];

/** The cofactor of G2 in E'(Fp2): 2p - r. */
const G2_COFACTOR = 0x30644e72e131a029b85045b68181585e06ceecda572a2489345f2299c0f9fa8dn;

function coordinates(point: Uint8Array): [Fp2, Fp2] {
  const [x, y] = G2.toObject(G2.toAffine(point)) as [Fp2, Fp2];
  return [x, y];
}

function inG2ByDefinition(point: Uint8Array): boolean {
  return G2.isZero(G2.timesScalar(point, curve.r));
}

/** Points on the twist E' found from x = k + (3k + 1) i: almost none of them lie in G2. */
function twistPoints(count: number): Uint8Array[] {
  const points: Uint8Array[] = [];
  for (let k = 1n; points.length < count; k++) {
    const x = F2.fromObject([k, 3n * k + 1n]);
    const rhs = F2.add(F2.mul(F2.square(x), x), (G2 as unknown as { b: Uint8Array }).b);
    if (!F2.isSquare(rhs)) continue;
    const point = new Uint8Array(128);
    point.set(x);
    point.set(F2.sqrt(rhs), 64);
    assert.ok(G2.isValid(point));
    points.push(point);
  }
  return points;
}

test('psi acts on G2 as multiplication by p', () => {
  const q = G2.toAffine(G2.timesScalar(G2.g, 987654321n));
  const p = 21888242871839275222246405745257275088696311157297823662689037894645226208583n;
  assert.deepEqual(psi(coordinates(q)), coordinates(G2.timesScalar(q, p % curve.r)));
});

test('the fast G2 membership test agrees with [r]Q = O on members and non-members', () => {
  for (let i = 1n; i <= 8n; i++) {
    const member = G2.toAffine(G2.timesScalar(G2.g, i * 1_000_003n));
    assert.equal(isInG2(curve, member, coordinates(member)), true);
  }
  for (const point of twistPoints(12)) {
    assert.equal(isInG2(curve, point, coordinates(point)), inG2ByDefinition(point));
    assert.equal(isInG2(curve, point, coordinates(point)), false);
    const cleared = G2.toAffine(G2.timesScalar(point, G2_COFACTOR));
    assert.equal(isInG2(curve, cleared, coordinates(cleared)), true, 'clearing the cofactor lands in G2');
  }
});

test('proof points off their curve, at infinity, or with B outside G2 are refused', () => {
  const g1 = (k: bigint) => G1.toObject(G1.toAffine(G1.timesScalar(G1.g, k))).slice(0, 2) as [bigint, bigint];
  const g2 = (point: Uint8Array) => coordinates(point);
  const a = g1(5n);
  const c = g1(7n);
  const b = g2(G2.timesScalar(G2.g, 11n));
  assert.ok(proofPoints(curve, { a, b, c }) !== null, 'well-formed points pass');
  assert.equal(proofPoints(curve, { a: [a[0], a[1] + 1n], b, c }), null, 'A off the curve');
  assert.equal(proofPoints(curve, { a, b, c: [0n, 0n] }), null, 'C at infinity');
  assert.equal(
    proofPoints(curve, {
      a,
      b: [
        [0n, 0n],
        [0n, 0n],
      ],
      c,
    }),
    null,
    'B at infinity',
  );
  const outside = twistPoints(1)[0] ?? G2.g;
  assert.equal(proofPoints(curve, { a, b: g2(outside), c }), null, 'B on the twist but outside G2');
});
