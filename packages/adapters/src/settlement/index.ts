/**
 * The venue's settlement pipeline (docs/settlement.md): matches to locks, batches, chain outcomes,
 * fill memos, the tree channel and settlement telemetry.
 */
export * from './chain-state-check.ts';
export * from './consumed-note-watch.ts';
export * from './consumed-notes.ts';
export * from './landed-batches.ts';
export * from './match-facts.ts';
export * from './note-openings.ts';
export * from './remote-tree-feed.ts';
export * from './settlement-chain.ts';
export * from './settlement-metrics.ts';
export * from './settlement-pipeline.ts';
export * from './settling-match.ts';
export * from './tree-feed.ts';
