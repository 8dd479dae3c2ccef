// Hostile stream clients in their own process, so their memory is not the venue's (issue 20): each
// socket logs in when given a token (or never does), stops reading, and sends one-byte frames (each
// draws an error reply) until the deadline, reconnecting whenever the venue drops it. Usage: node
// stream-flood-child.mjs, with one JSON line on stdin: { port, ca, seconds, tokens: (string|null)[] }
// (one socket per entry). Prints one JSON line of counts when the deadline passes, then exits.
import WebSocket from 'ws';

/** Our own unsent bytes per socket: we send as fast as the venue reads, no faster. */
const OWN_BUFFER_BYTES_MAX = 256 * 1024;

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  input += chunk;
});
process.stdin.on('end', () => {
  const { port, ca, seconds, tokens } = JSON.parse(input);
  const deadline = Date.now() + seconds * 1000;
  const counts = { sockets: tokens.length, connections: 0, framesSent: 0, loginsRefused: 0 };
  const sockets = new Set();
  for (const token of tokens) connect(token);
  setTimeout(() => {
    for (const socket of sockets) socket.terminate();
    process.stdout.write(`${JSON.stringify(counts)}\n`);
    process.exit(0);
  }, seconds * 1000);

  function connect(token) {
    if (Date.now() >= deadline) return;
    const socket = new WebSocket(`wss://127.0.0.1:${port}/v1/stream`, { ca, perMessageDeflate: false });
    sockets.add(socket);
    counts.connections += 1;
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      setTimeout(() => connect(token), 20);
    });
    socket.on('open', () => {
      if (token === null) return flood(socket);
      socket.once('message', (data) => {
        if (!String(data).includes('"op":"login"')) counts.loginsRefused += 1;
        flood(socket);
      });
      socket.send(JSON.stringify({ op: 'login', request_id: 'login', token }));
    });
  }

  function flood(socket) {
    socket.pause(); // never read again: the venue's replies back up
    const step = () => {
      if (socket.readyState !== WebSocket.OPEN || Date.now() >= deadline) return;
      for (let i = 0; i < 2_000 && socket.bufferedAmount < OWN_BUFFER_BYTES_MAX; i += 1) {
        socket.send('x');
        counts.framesSent += 1;
      }
      setTimeout(step, 1);
    };
    step();
  }
});
