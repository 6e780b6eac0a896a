/* The limit of the HTTP layer: a bare uWebSockets.js hello world, in a process of its own. */
import uWS from 'uWebSockets.js';

uWS
  .App()
  .get('/*', (res) => {
    res.end('hello');
  })
  .listen('127.0.0.1', 0, (socket) => {
    if (!socket) process.exit(1);
    process.stdout.write(`${JSON.stringify({ ready: true, port: uWS.us_socket_local_port(socket) })}\n`);
  });
process.on('SIGTERM', () => process.exit(0));
