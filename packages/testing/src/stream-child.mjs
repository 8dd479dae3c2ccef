// A stream client in its own process, for tests that need a reader the venue cannot drain: the
// test stops this process (SIGSTOP), so it reads nothing and the kernel's socket buffers fill, as
// with a real client that hangs. Usage: node stream-child.mjs <port> <token>, certificate PEM on
// stdin. Prints READY once logged in and subscribed to orders, then reads until killed.
import WebSocket from 'ws';

const [port, token] = process.argv.slice(2);
let ca = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  ca += chunk;
});
process.stdin.on('end', () => {
  const socket = new WebSocket(`wss://127.0.0.1:${port}/v1/stream`, { ca, perMessageDeflate: false });
  socket.on('open', () => {
    socket.send(JSON.stringify({ op: 'login', request_id: 'login', token }));
    socket.send(JSON.stringify({ op: 'subscribe', request_id: 'subscribe', channels: ['orders'] }));
  });
  socket.on('message', (data) => {
    const frame = JSON.parse(data.toString());
    if (frame.op === 'subscribe') process.stdout.write('READY\n');
    if (frame.op === 'error') process.stdout.write(`ERROR ${frame.code}\n`);
  });
  socket.on('close', (code) => {
    process.stdout.write(`CLOSED ${code}\n`);
    process.exit(0);
  });
});
