/** Names of the snapshot objects: `snapshot-<record seq, 20 digits>`, so names sort by sequence. */
export function snapshotObjectName(seq: bigint): string {
  return `snapshot-${seq.toString().padStart(20, '0')}`;
}

/** The sequence number in a snapshot object's name, or null for any other object. */
export function parseSnapshotName(name: string): bigint | null {
  const match = /^snapshot-(\d{20})$/.exec(name);
  return match === null ? null : BigInt(match[1] as string);
}
