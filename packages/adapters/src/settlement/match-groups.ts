/**
 * The groups of one auction batch's matches (docs/settlement.md section 1): matches joined by their
 * fills settle together, since value is conserved only over a whole group.
 */

/** What joining reads of a match: its id and its counterparties' (null: none known). */
export interface Joinable {
  readonly matchId: bigint;
  readonly counterpartyMatchIds: readonly bigint[] | null;
}

/**
 * One auction batch's matches being joined into groups by their fills: a union-find over their
 * indexes, fed one match at a time. A match naming a counterparty not read yet is joined to it when
 * that one comes, so the groups do not depend on the order the matches are read in.
 */
export interface Joining<M extends Joinable> {
  readonly matches: M[];
  readonly indexOf: Map<bigint, number>;
  readonly parent: number[];
  /** Matches (indexes) that named a counterparty not read yet, by that counterparty's match id. */
  readonly awaited: Map<bigint, number[]>;
}

export function newJoining<M extends Joinable>(): Joining<M> {
  return { matches: [], indexOf: new Map(), parent: [], awaited: new Map() };
}

export function join<M extends Joinable>(into: Joining<M>, match: M): void {
  const { matches, indexOf, parent, awaited } = into;
  const i = matches.length;
  matches.push(match);
  indexOf.set(match.matchId, i);
  parent.push(i);
  for (const j of awaited.get(match.matchId) ?? []) union(parent, i, j);
  awaited.delete(match.matchId);
  for (const other of match.counterpartyMatchIds ?? []) {
    const j = indexOf.get(other);
    if (j !== undefined) union(parent, i, j);
    else {
      const waiting = awaited.get(other);
      if (waiting === undefined) awaited.set(other, [i]);
      else waiting.push(i);
    }
  }
}

function union(parent: number[], i: number, j: number): void {
  const a = rootOf(parent, i);
  const b = rootOf(parent, j);
  if (a !== b) parent[a] = b;
}

function rootOf(parent: number[], from: number): number {
  let i = from;
  while (parent[i] !== i) {
    const up = parent[i] as number;
    parent[i] = parent[up] as number; // path halving
    i = up;
  }
  return i;
}

/** The groups of a joining: in the order of their first match, each in match order. */
export function groupsOf<M extends Joinable>(joining: Joining<M>): M[][] {
  const { matches, parent } = joining;
  const byRoot = new Map<number, M[]>();
  const groups: M[][] = [];
  for (const [i, match] of matches.entries()) {
    const root = rootOf(parent, i);
    const group = byRoot.get(root);
    if (group !== undefined) group.push(match);
    else {
      const fresh = [match];
      byRoot.set(root, fresh);
      groups.push(fresh);
    }
  }
  return groups;
}

/** Splits matches into groups joined by fills (union-find over match ids). */
export function connected<M extends Joinable>(matches: readonly M[]): M[][] {
  const into = newJoining<M>();
  for (const match of matches) join(into, match);
  return groupsOf(into);
}
