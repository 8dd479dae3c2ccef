/**
 * @venue/cli: the `venue` command line as a library, for tools that embed it. The dev venue
 * (`startDevVenue`) is not exported here: it needs the server packages, which only the repository
 * has; in the workspace import it from src/dev/dev-venue.ts.
 */
export * from './program.ts';
