import type { Server } from 'node:https';
import type { FastifyInstance } from 'fastify';

/** The Fastify instance of the venue: HTTPS only, never plain HTTP. */
export type VenueFastify = FastifyInstance<Server>;

/** Registers further routes (later REST endpoints) under the server's hooks and error handling. */
export type RoutePlugin = (app: VenueFastify) => void;
