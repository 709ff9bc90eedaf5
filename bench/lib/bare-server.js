/**
 * The baseline of an HTTP benchmark: a bare `node:http` server in a process of its own, answering
 * every request with the JSON body it is given, as the hub answers the lookup being measured.
 *
 * Run: node bench/lib/bare-server.js <port> (the body on stdin). Prints "listening" once it is.
 */
const http = require('node:http');

const port = Number(process.argv[2]);
const chunks = [];
process.stdin.on('data', (chunk) => chunks.push(chunk));
process.stdin.on('end', () => {
  const body = Buffer.concat(chunks);
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
    res.end(body);
  });
  server.listen(port, '127.0.0.1', () => console.log('listening'));
  process.once('SIGTERM', () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
});
