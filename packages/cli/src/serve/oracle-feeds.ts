import type { OracleMonitor, OracleVerdict, VenueClock } from '@venue/adapters';
import type { OracleUpdate } from '@venue/protocol';

/**
 * The served venue's oracle intake: every `pollMs` it fetches the newest signed update of each feed
 * from the publisher's URL and hands it to the OracleMonitor, which checks the publisher signature,
 * the sequence and the slot and gates the feed's markets (docs/enclave.md). A feed that cannot be
 * fetched simply sends nothing: its markets go stale after their `oracle_max_age_slots`, alone.
 *
 * The URL answers GET with one JSON object: `feed`, `price`, `confidence`, `publish_slot`,
 * `sequence` (integers or decimal strings) and `signature` (hex), as signOracleUpdate makes it.
 */

/** A feed answer larger than this is refused unread beyond it. */
export const ORACLE_RESPONSE_BYTES_MAX = 4 * 1024;

export interface OracleFeedSource {
  readonly feed: string;
  readonly url: string;
}

export interface OracleFeeds {
  stop(): void;
}

export function pollOracleFeeds(
  sources: readonly OracleFeedSource[],
  monitor: OracleMonitor,
  clock: VenueClock,
  options: { pollMs: number; onProblem: (feed: string, problem: string) => void },
): OracleFeeds {
  const lastProblem = new Map<string, string>();
  const report = (feed: string, problem: string | null) => {
    // One line per change of a feed's state, not one per poll.
    if ((lastProblem.get(feed) ?? null) === problem) return;
    if (problem === null) lastProblem.delete(feed);
    else lastProblem.set(feed, problem);
    options.onProblem(feed, problem ?? 'updates accepted again');
  };
  const pollOne = async (source: OracleFeedSource) => {
    try {
      const update = await fetchUpdate(source, options.pollMs);
      // The publisher answers with its newest update until it signs the next one, so a poll often
      // fetches the update the monitor already took. That is nothing new, not a replay: handed to
      // the monitor it would count as a resend and close the feed's markets until the next update
      // (decisions D147). Anything else, an older or altered update included, goes to the monitor.
      if (sameUpdate(update, monitor.latestUpdate(source.feed))) {
        report(source.feed, null);
        return;
      }
      const verdict: OracleVerdict = monitor.receive(update, clock.slot());
      report(source.feed, verdict === 'accepted' ? null : `update refused: ${verdict}`);
    } catch (error) {
      report(source.feed, `cannot fetch ${source.url}: ${(error as Error).message}`);
    }
  };
  let polling = false;
  const poll = async () => {
    if (polling) return;
    polling = true;
    try {
      await Promise.all(sources.map(pollOne));
      // Staleness is judged every poll, also when nothing arrived.
      monitor.evaluate(clock.slot());
    } finally {
      polling = false;
    }
  };
  void poll();
  const timer = setInterval(() => void poll(), options.pollMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** The same signed update, field for field (an altered copy under the same sequence is not). */
export function sameUpdate(update: OracleUpdate, latest: OracleUpdate | null): boolean {
  return (
    latest !== null &&
    update.feed === latest.feed &&
    update.sequence === latest.sequence &&
    update.publish_slot === latest.publish_slot &&
    update.price === latest.price &&
    update.confidence === latest.confidence &&
    update.signature === latest.signature
  );
}

/** One GET of a feed URL: the update it answers, checked for shape (not yet for its signature). */
export async function fetchUpdate(source: OracleFeedSource, timeoutMs: number): Promise<OracleUpdate> {
  const response = await fetch(source.url, { signal: AbortSignal.timeout(Math.max(1_000, timeoutMs * 2)) });
  const text = await response.text();
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  if (text.length > ORACLE_RESPONSE_BYTES_MAX)
    throw new Error(`answer larger than ${ORACLE_RESPONSE_BYTES_MAX} bytes`);
  const json = JSON.parse(text) as Record<string, unknown>;
  const u64 = (key: string): bigint => {
    const value = json[key];
    if (
      (typeof value === 'number' && Number.isSafeInteger(value)) ||
      (typeof value === 'string' && /^[0-9]{1,20}$/.test(value))
    ) {
      return BigInt(value);
    }
    throw new Error(`field ${key}: expected an unsigned integer`);
  };
  const { feed, signature } = json;
  if (feed !== source.feed) throw new Error(`the answer is for feed ${String(feed)}, not ${source.feed}`);
  if (typeof signature !== 'string') throw new Error('field signature: expected hex');
  // The monitor verifies the signature over exactly these values.
  return {
    feed,
    price: u64('price'),
    confidence: u64('confidence'),
    publish_slot: u64('publish_slot'),
    sequence: u64('sequence'),
    signature,
  };
}
