/**
 * When a journal takes its next snapshot: once enough records came since the last one, or once
 * enough time passed with at least one record. The file and the JetStream journals share the rule,
 * so a venue snapshots on the same schedule whichever journal it runs on.
 */
export function snapshotIsDue(
  recordsSince: bigint,
  msSince: number,
  interval: { readonly records: number; readonly ms: number },
): boolean {
  if (recordsSince >= BigInt(interval.records)) return true;
  return recordsSince > 0n && msSince >= interval.ms;
}
