/** @venue/cli: the `venue` command line as a library, for tests and tools that embed it. */
export * from './dev/banner.ts';
export * from './dev/dev-venue.ts';
export * from './program.ts';
