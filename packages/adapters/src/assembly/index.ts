/**
 * The one venue assembly (docs/architecture.md "One assembly"): every entry point builds its ports
 * and calls `assembleVenue`. The pipeline factory is exported for the settlement tests, which drive
 * a pipeline on its own.
 */
export * from './assemble-venue.ts';
export type { VenueCompanions } from './companions.ts';
export * from './create-settlement.ts';
export * from './venue-ports.ts';
export type { VenueBody, VenueServer } from './venue-server.ts';
