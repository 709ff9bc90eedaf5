/**
 * The benchmarks' HTTP client for timed requests: node:http over one keep-alive agent, the body
 * read whole and parsed as JSON. `fetch` in the same process as the hub left about two thirds of
 * the objects that outlived young collections in a search-cases run (its streams and clones), so
 * the hub's process ran a full collection every few seconds and the rounds they fell in measured
 * the benchmark's own client (bench/RESULTS.md, 27 November 2026).
 */
const http = require('node:http');

const agent = new http.Agent({ keepAlive: true });

/** Sends a request to `url` and answers its status and parsed JSON body. */
function requestJson(url, { method = 'GET', headers = {}, body } = {}) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method,
      agent,
      headers: payload === undefined ? headers : { ...headers, 'Content-Type': 'application/json' },
    });
    request.on('error', reject);
    request.on('response', (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        try {
          resolve({ status: response.statusCode, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        } catch (err) {
          reject(err);
        }
      });
    });
    request.end(payload);
  });
}

module.exports = { requestJson };
