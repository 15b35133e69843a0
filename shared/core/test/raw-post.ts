import http from 'node:http';

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * A POST through node:http, which can send any Host (fetch sets its own) and repeat a header,
 * as an MCP client over Streamable HTTP sends it; its status, headers and whole body.
 */
export function rawPost(url: string, headers: http.OutgoingHttpHeaders, body: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
    });
    request.once('response', (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
      });
      response.once('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text }),
      );
    });
    request.once('error', reject);
    request.end(body);
  });
}
