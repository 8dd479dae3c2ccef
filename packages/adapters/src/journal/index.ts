/** The durable journal of the core's commands (issue 9): docs/durability.md describes it. */
export * from './durable-file.ts';
export * from './file-journal.ts';
export * from './files.ts';
export * from './jetstream/index.ts';
export * from './journal.ts';
export * from './journal-record.ts';
export * from './record-codec.ts';
export * from './record-shapes.ts';
export * from './recovery.ts';
export * from './snapshot-file.ts';
