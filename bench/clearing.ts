/**
 * Clearing alone (issue 21): crossing books from 1,000 to 100,000 orders against linear growth, and
 * one tick over 64 markets whose books cannot cross against the full auction on every book. The
 * code and its baselines live in core.ts ("Clearing as the book deepens"), which prints the same
 * figures after its own; this entry runs them without the core's operation mix.
 */
import { clearingFigures } from './core.ts';
import type { Figure } from './harness.ts';

export function run(quick: boolean): Figure[] {
  process.stderr.write(
    `clearing: crossing books by depth, and a tick over many markets${quick ? ' (quick)' : ''}\n`,
  );
  return clearingFigures(quick);
}
