/*
 * The limit of the socket layer: socket.io attached to a bare uWebSockets.js app, no auth, no
 * Redis. A socket joins the room named in its query; `burst {n}` emits n events to that room,
 * in batches of 1,000 a tick (as hearth's event hub hands out one Redis read at a time).
 */
import uWS from 'uWebSockets.js';
import { Server } from 'socket.io';

const app = uWS.App();
const io = new Server({ path: '/socket.io', serveClient: false });
io.attachApp(app);
io.on('connection', (socket) => {
  const room = String(socket.handshake.query.room ?? 'r');
  void socket.join(room);
  socket.emit('connected', { room });
  socket.on('burst', (p: { n?: number }) => {
    const n = Math.min(Number(p?.n ?? 0), 100_000);
    let i = 0;
    const batch = () => {
      const end = Math.min(n, i + 1_000);
      for (; i < end; i++) io.to(room).emit('tool_call', { i, t: Date.now(), sessionId: room, requestId: 'bare' });
      if (i < n) setImmediate(batch);
    };
    batch();
  });
});
app.listen('127.0.0.1', 0, (socket) => {
  if (!socket) process.exit(1);
  process.stdout.write(`${JSON.stringify({ ready: true, port: uWS.us_socket_local_port(socket) })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
