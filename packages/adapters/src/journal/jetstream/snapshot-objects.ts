/**
 * Names of the snapshot objects: `snapshot-<record seq>-<message>`, both 20 digits, so names sort by
 * record. The message is the stream message that holds the record (a message carries several
 * records), where a reader starts from the snapshot.
 */
export function snapshotObjectName(seq: bigint, message: bigint): string {
  return `snapshot-${seq.toString().padStart(20, '0')}-${message.toString().padStart(20, '0')}`;
}

/** The record and message numbers in a snapshot object's name, or null for any other object. */
export function parseSnapshotName(name: string): { seq: bigint; message: bigint } | null {
  const match = /^snapshot-(\d{20})-(\d{20})$/.exec(name);
  return match === null ? null : { seq: BigInt(match[1] as string), message: BigInt(match[2] as string) };
}
