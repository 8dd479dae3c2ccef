/**
 * @venue/core: the deterministic venue state machine. Depends only on @venue/protocol.
 */
export { FillColumns } from './auction/fill-columns.ts';
export * from './auction/types.ts';
export {
  matchCounterparties,
  matchFills,
  matchLists,
  type PlainBatchEvent,
  type PlainMatchEvent,
  plainBatchEvent,
  plainMatchEvent,
} from './batch/match-pairing.ts';
export {
  expandedEvents,
  matchEventsOf,
  orderEventsOf,
  pendingSettlementEvent,
} from './batch/pending-events.ts';
export * from './commands.ts';
export * from './config.ts';
export * from './events.ts';
export * from './intake/note-value.ts';
export { NOTES_CONSUMED_PER_COMMAND_MAX } from './lifecycle/notes-consumed.ts';
export * from './market.ts';
export * from './u64.ts';
export * from './venue-core.ts';
