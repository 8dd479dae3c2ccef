import { createServer, type Server } from 'node:http';
import { ChainRpcClient, createOracleSimulator } from '@venue/adapters';

/**
 * An oracle publisher over HTTP for the serve tests: each GET answers the next signed update of
 * one feed, stamped a few slots behind the chain's slot so that it is never ahead of the venue's
 * polled view of it. Listens on a free loopback port.
 */
export async function startOraclePublisher(
  chainUrl: string,
  feed: { readonly feed: string; readonly symbol: string; readonly startPrice: bigint },
): Promise<{ server: Server; url: string; publisherKey: string }> {
  const simulator = createOracleSimulator({ feeds: [feed] });
  const rpc = new ChainRpcClient(chainUrl);
  const server = createServer((_request, response) => {
    void (async () => {
      const { slot } = await rpc.request('getSlot');
      const [update] = simulator.step(slot > 5n ? slot - 5n : 0n);
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify(update, (_key, value) => (typeof value === 'bigint' ? value.toString() : value)),
      );
    })().catch(() => {
      // The chain did not answer in time (a loaded machine): the publisher is down for this poll,
      // which the venue's feed poller reports and retries.
      response.statusCode = 503;
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the publisher has no port');
  return {
    server,
    url: `http://127.0.0.1:${address.port}/`,
    publisherKey: simulator.publisherKeys.get(feed.feed) ?? '',
  };
}
