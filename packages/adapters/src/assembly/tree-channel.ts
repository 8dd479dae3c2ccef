import { RemoteTreeFeed } from '../settlement/remote-tree-feed.ts';
import type { SettlementPublisher } from '../settlement/settlement-pipeline.ts';
import { TreeFeed } from '../settlement/tree-feed.ts';
import type { ChainPorts, TreeChannel } from './venue-ports.ts';

/**
 * The stream's tree channel (spec 6.2), settling or not: an in-process chain is read on every beat;
 * a remote one is read once now (which fixes where the channel starts, before any subscriber can
 * exist) and then polled. Resolves to the function that stops it.
 */
export async function openTreeChannel(
  chain: ChainPorts,
  channel: TreeChannel,
  publisher: SettlementPublisher,
): Promise<() => Promise<void>> {
  if ('reads' in channel) {
    const feed = new TreeFeed(channel.reads, publisher);
    const detach = chain.onBeat(() => feed.refresh());
    return async () => detach();
  }
  const feed = new RemoteTreeFeed(channel.updates, publisher, {
    onProblem: channel.onProblem,
    ...(channel.admit === undefined ? {} : { admit: channel.admit }),
  });
  await feed.open().catch((error: Error) => {
    throw new Error(`${channel.name} does not answer getTreeUpdates (${error.message})`);
  });
  feed.start(channel.pollMs);
  return () => feed.stop();
}
