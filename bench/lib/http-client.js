/**
 * The benchmarks' HTTP client for timed requests: node:http over one keep-alive agent. `fetch` in
 * the same process as the hub leaves many objects that outlive young collections (its streams
 * and clones), so the hub's process runs full collections and the rounds they fall in measure the
 * benchmark's own client rather than the hub.
 */
const http = require('node:http');

const agent = new http.Agent({ keepAlive: true });

/** Sends a request and reads its answer to the end; with `parse`, whole and as JSON. */
function send(url, { method = 'GET', headers = {}, body } = {}, parse) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method,
      agent,
      headers: payload === undefined ? headers : { ...headers, 'Content-Type': 'application/json' },
    });
    request.on('error', reject);
    request.on('response', (response) => {
      response.on('error', reject);
      if (!parse) {
        response.on('end', () => resolve({ status: response.statusCode }));
        response.resume();
        return;
      }
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
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

/** Sends a request to `url` and answers its status and parsed JSON body. */
const requestJson = (url, options) => send(url, options, true);

/**
 * Sends a request to `url` and answers its status, the answer read to the end but not parsed:
 * for the timed rounds. Parsing large answers in the hub's process promotes their objects and
 * sets off full collections that fall in later rounds; a caller parses its answers in a process
 * of its own.
 */
const requestStatus = (url, options) => send(url, options, false);

module.exports = { requestJson, requestStatus };
