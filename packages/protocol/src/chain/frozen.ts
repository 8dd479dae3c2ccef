import type { Static, TSchema } from 'typebox';

/**
 * The static type of a chain schema, read-only all the way down: what a decoder returns may be
 * handed on without copying, and a caller may pass read-only arrays it already holds.
 */
export type Frozen<T> = T extends bigint | string | number | boolean | null | undefined
  ? T
  : T extends readonly (infer Item)[]
    ? readonly Frozen<Item>[]
    : { readonly [K in keyof T]: Frozen<T[K]> };

/** The read-only static type of a schema. */
export type ChainStatic<T extends TSchema> = Frozen<Static<T>>;
