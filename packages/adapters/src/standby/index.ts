/** The hot standby and the takeover of a journal stream (issue 22): docs/operations.md. */
export * from './stream-follower.ts';
export * from './takeover.ts';
