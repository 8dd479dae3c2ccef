/**
 * The connection to a JetStream cluster and the three things the venue keeps there, all named after
 * the configured stream:
 * - stream `<name>`, one subject `<name>.records`: the sealed record frames, message N = record N;
 * - object store `<name>-snapshots`: sealed snapshot files, object name = the record they follow;
 * - key-value bucket `<name>-lease`: the primary's lease (jetstream-lease.ts).
 * All three are created on first use with the configured replica count and file storage.
 */

import { readFile } from 'node:fs/promises';
import {
  DiscardPolicy,
  JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
} from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { type ObjectStore, Objm } from '@nats-io/obj';
import { connect, credsAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { backoffMs, isPassingBrokerError } from './passing-errors.ts';

export interface JetStreamSettings {
  /** Client URLs of the cluster's nodes, e.g. `nats://10.0.0.1:4222`. */
  readonly servers: readonly string[];
  /** The stream's name; letters, digits, `-` and `_` only. */
  readonly stream: string;
  /** Copies of every record the cluster keeps (1, 3 or 5); an append waits for a majority. */
  readonly replicas: number;
  /** A NATS `.creds` file (JWT + nkey seed), when the cluster requires one. */
  readonly credentialsFile?: string;
  /**
   * How long one try of a JetStream API request (stream info, consumer creation...) waits for its
   * answer. Default 2 s: a request sent to a leader that just died is never answered, and is tried
   * again (whileElecting) rather than waited on.
   */
  readonly apiTimeoutMs?: number;
}

export const STREAM_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export interface JetStreamLink {
  readonly settings: JetStreamSettings;
  readonly connection: NatsConnection;
  readonly client: JetStreamClient;
  readonly manager: JetStreamManager;
  /** The subject every record is published on. */
  readonly subject: string;
  readonly snapshots: ObjectStore;
  /** Closes the connection (after flushing what it sent). */
  close(): Promise<void>;
}

export function recordSubject(stream: string): string {
  return `${stream}.records`;
}

export function leaseBucketOf(stream: string): string {
  return `${stream}-lease`;
}

/** One try of an API request; see `apiTimeoutMs`. */
const API_TRY_TIMEOUT_MS = 2000;
/** How long a request is tried again while the cluster elects its leaders, at most. */
export const ELECTION_WAIT_MS = 60_000;

/** How long the stream remembers a message id: a republish within it is answered "duplicate". */
const DUPLICATE_WINDOW_NS = 120_000_000_000;

/**
 * Connects and makes sure the stream and the snapshot store exist with this configuration. The
 * client reconnects on its own for as long as the process lives (a node restarting is routine).
 */
export async function openJetStreamLink(settings: JetStreamSettings): Promise<JetStreamLink> {
  if (!STREAM_NAME_PATTERN.test(settings.stream))
    throw new Error(
      `journal stream name ${JSON.stringify(settings.stream)} may hold only letters, digits, - and _`,
    );
  const authenticator =
    settings.credentialsFile === undefined
      ? undefined
      : credsAuthenticator(await readFile(settings.credentialsFile));
  const connection = await connect({
    servers: [...settings.servers],
    name: `venue-journal-${settings.stream}`,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    ...(authenticator === undefined ? {} : { authenticator }),
  });
  try {
    const apiTimeout = { timeout: settings.apiTimeoutMs ?? API_TRY_TIMEOUT_MS };
    const manager = await whileElecting(() => jetstreamManager(connection, apiTimeout));
    const subject = recordSubject(settings.stream);
    await whileElecting(() => ensureStream(manager, settings, subject));
    const snapshots = await whileElecting(() =>
      new Objm(jetstream(connection, apiTimeout)).create(`${settings.stream}-snapshots`, {
        replicas: settings.replicas,
        storage: StorageType.File,
      }),
    );
    return {
      settings,
      connection,
      client: jetstream(connection, apiTimeout),
      manager,
      subject,
      snapshots,
      close: () => connection.close(),
    };
  } catch (error) {
    await connection.close().catch(() => undefined);
    throw error;
  }
}

async function ensureStream(
  manager: JetStreamManager,
  settings: JetStreamSettings,
  subject: string,
): Promise<void> {
  const existing = await manager.streams.info(settings.stream).catch((error: unknown) => {
    // Only "not found" means create it; a timeout must not look like a missing journal.
    if (error instanceof JetStreamApiError && error.code === 10059) return null;
    throw error;
  });
  if (existing !== null) {
    if (existing.config.num_replicas !== settings.replicas) {
      throw new Error(
        `journal stream ${settings.stream} exists with ${existing.config.num_replicas} replicas, the configuration says ${settings.replicas}; change one of them (nats stream edit) so they agree`,
      );
    }
    return;
  }
  await manager.streams.add({
    name: settings.stream,
    subjects: [subject],
    num_replicas: settings.replicas,
    storage: StorageType.File,
    // A journal is kept whole: nothing expires or is discarded; old records go only by explicit purge.
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.New,
    duplicate_window: DUPLICATE_WINDOW_NS,
    deny_delete: true,
    allow_direct: true,
  });
}

/** The lease bucket, created with `ttlMs` as its entries' time to live. */
export async function openLeaseBucket(link: JetStreamLink, ttlMs: number) {
  return await whileElecting(() =>
    new Kvm(link.client).create(leaseBucketOf(link.settings.stream), {
      replicas: link.settings.replicas,
      history: 1,
      ttl: ttlMs,
      storage: StorageType.File,
    }),
  );
}

/**
 * Runs a JetStream API request again, with a bounded backoff, while the cluster gives a passing
 * answer (passing-errors.ts), for up to `forMs`: after a node is lost or returns, the cluster may
 * take seconds to elect its leaders (4 to 9 s on nats-server 2.9, more on a loaded machine), and a
 * request should wait that out rather than fail the venue. Any other error is thrown at once.
 */
export async function whileElecting<T>(request: () => Promise<T>, forMs = ELECTION_WAIT_MS): Promise<T> {
  const deadline = Date.now() + forMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await request();
    } catch (error) {
      if (!isPassingBrokerError(error) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, backoffMs(attempt)));
    }
  }
}
