import type { VenueEngine } from '../venue/venue-engine.ts';

/**
 * The venue's mirror of the chain's recent-root windows (spec 2.1 merkle_root: checked at intake
 * against the window of the order's shard). After every chain slot or reorg the mirror compares
 * each shard's window with the one it last gave the core and, on any change, hands the core the
 * chain's window as it now is: after a reorg that is the surviving fork's, so roots that no longer
 * exist stop being accepted at once.
 */
export interface RootSource {
  /** The shard's recent roots, oldest first. */
  rootWindow(treeId: number): readonly { readonly root: string }[];
}

export class RootMirror {
  readonly #engine: VenueEngine;
  readonly #source: RootSource;
  readonly #treeCount: number;
  readonly #mirrored = new Map<number, string>();
  /**
   * The window array each shard last had. Sources replace a window rather than change it in place,
   * so the same array means nothing changed: a refresh on every tree read (mirroredReads) then costs
   * a lookup per shard instead of joining its roots.
   */
  readonly #windows = new Map<number, readonly { readonly root: string }[]>();

  constructor(engine: VenueEngine, source: RootSource, treeCount: number) {
    this.#engine = engine;
    this.#source = source;
    this.#treeCount = treeCount;
  }

  refresh(): void {
    for (let treeId = 0; treeId < this.#treeCount; treeId += 1) {
      const window = this.#source.rootWindow(treeId);
      if (this.#windows.get(treeId) === window) continue;
      this.#windows.set(treeId, window);
      const roots = window.map((entry) => entry.root);
      const key = roots.join(',');
      if (this.#mirrored.get(treeId) === key) continue;
      this.#mirrored.set(treeId, key);
      this.#engine.record({ type: 'roots', treeId, roots });
    }
  }
}
