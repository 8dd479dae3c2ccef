import { assetOfOrder, proofChecksOf } from '@venue/adapters';
import { createProofVerifier, loadNoteHasher, type ProofVerifier } from '@venue/notes';
import { TEST_CORE_CONFIG, testMarket } from './core-fixtures.ts';
import { TestVenue } from './venue-fixture.ts';

/**
 * A settling test venue that verifies real Groth16 proofs: Poseidon note commitments, the notes
 * package's verifier (one worker), the in-process chain with `finalityDepth`, and the SOL-USDC
 * oracle price at `price`. For end-to-end tests where a client proves its notes.
 */
export interface ProvingVenue {
  readonly venue: TestVenue;
  readonly verifier: ProofVerifier;
  stop(): Promise<void>;
}

export async function startProvingVenue(options: {
  finalityDepth: number;
  price: bigint;
}): Promise<ProvingVenue> {
  const hasher = await loadNoteHasher();
  const verifier = createProofVerifier({
    mode: 'groth16',
    settles: true,
    assetOf: assetOfOrder(() => [testMarket('SOL-USDC'), testMarket('ETH-USDC')]),
    workers: 1,
  });
  await verifier.ready();
  const venue = await TestVenue.start({
    settlement: true,
    finalityDepth: options.finalityDepth,
    core: { ...TEST_CORE_CONFIG, noteCommitment: hasher.noteCommitment },
    proofMode: 'groth16',
    proofs: proofChecksOf(verifier),
    // Settlement proves with the real VALID_MATCH circuit and the chain verifies it: drive slots
    // with settleAll, which gives the provers wall time.
    settlementProofs: 'groth16',
  });
  venue.server.engine.record({
    type: 'oracle_price',
    marketId: testMarket('SOL-USDC').marketId,
    price: options.price,
  });
  return {
    venue,
    verifier,
    async stop() {
      await venue.stop();
      await verifier.close();
    },
  };
}
