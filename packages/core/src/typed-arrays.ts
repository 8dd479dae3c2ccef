/** `to` (a larger column of the same kind) with `from` copied to its start: how columns grow. */
export function grown<T extends Float64Array | Int32Array | Uint8Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
