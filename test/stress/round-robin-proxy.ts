// The load balancer of docs/operations.md ("Several servers behind a load balancer"), as the fleet
// test runs it: every request to the proxy goes to the next server in turn, its body streamed
// through and its answer streamed back; a server that cannot be reached answers 502.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RoundRobinProxy {
  url: string;
  close(): Promise<void>;
}

export async function startRoundRobinProxy(upstreams: string[], port = 0): Promise<RoundRobinProxy> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  let next = 0;
  const server = http.createServer((request, response) => {
    const target = new URL(request.url ?? '/', upstreams[next++ % upstreams.length]);
    const forwarded = http.request(
      target,
      {
        method: request.method,
        agent,
        headers: { ...request.headers, host: target.host, 'x-forwarded-for': request.socket.remoteAddress ?? '' },
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    forwarded.on('error', () => {
      if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain' });
      response.end('upstream unreachable');
    });
    request.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
