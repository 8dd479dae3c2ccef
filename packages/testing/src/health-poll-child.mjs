// `/health` as a monitoring probe sees it, from a process of its own (issue 20): polling from the
// venue's process would put the client's half of every TLS handshake on the venue's event loop and
// in its figures. Each call opens a new TLS connection, as a load balancer's probe does. Usage: node
// health-poll-child.mjs, with one JSON line on stdin: { port, ca, seconds, pauseMs }. Prints one
// JSON line when the time is up: { latenciesMs: number[], startsMs: number[], failures: string[] }
// (each call's latency and when it started, from the first call), then exits.
import { request } from 'node:https';
import { performance } from 'node:perf_hooks';

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  input += chunk;
});
process.stdin.on('end', async () => {
  const { port, ca, seconds, pauseMs } = JSON.parse(input);
  const deadline = performance.now() + seconds * 1000;
  const latenciesMs = [];
  const startsMs = [];
  const failures = [];
  const first = performance.now();
  while (performance.now() < deadline) {
    const started = performance.now();
    try {
      const status = await health(port, ca);
      if (status === 200) {
        latenciesMs.push(performance.now() - started);
        startsMs.push(started - first);
      } else failures.push(`status ${status}`);
    } catch (error) {
      failures.push(String(error?.message ?? error));
    }
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  process.stdout.write(`${JSON.stringify({ latenciesMs, startsMs, failures })}\n`);
  process.exit(0);
});

function health(port, ca) {
  return new Promise((resolve, reject) => {
    const call = request(
      { host: '127.0.0.1', port, path: '/health', method: 'GET', ca, agent: false, timeout: 10_000 },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode));
        response.on('error', reject);
      },
    );
    call.on('timeout', () => call.destroy(new Error('no answer within 10 s')));
    call.on('error', reject);
    call.end();
  });
}
