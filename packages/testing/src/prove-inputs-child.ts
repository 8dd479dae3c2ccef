/**
 * Proves VALID_INPUT for a list of notes in a process of its own (started with `node --import tsx`),
 * so that a test can prove ahead of its load on several cores and keep the prover's circuit out of
 * its own memory. Reads one JSON array of ProveJob from stdin and prints one JSON line per proof,
 * in the jobs' order: the place-order fields it was made for.
 */
import { createValidInputProver } from '@venue/notes';

export interface ProveJob {
  readonly spendingKey: string;
  readonly assetId: string;
  readonly blinding: string;
  readonly value: string;
  readonly leafIndex: number;
  readonly siblings: readonly string[];
  readonly pathBits: readonly boolean[];
  readonly merkleRoot: string;
  readonly treeId: number;
  readonly tradingKey: string;
}

async function main(): Promise<void> {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  const jobs = JSON.parse(text) as ProveJob[];
  const prover = await createValidInputProver({ singleThread: true });
  try {
    for (const job of jobs) {
      const proved = await prover.prove({
        spendingKey: BigInt(job.spendingKey),
        note: { assetId: BigInt(job.assetId), blinding: BigInt(job.blinding), value: BigInt(job.value) },
        path: { leafIndex: job.leafIndex, siblings: job.siblings.map(BigInt), pathBits: [...job.pathBits] },
        merkleRoot: BigInt(job.merkleRoot),
        treeId: job.treeId,
        tradingKey: job.tradingKey,
      });
      process.stdout.write(`${JSON.stringify(proved.orderFields)}\n`);
    }
  } finally {
    await prover.close();
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
