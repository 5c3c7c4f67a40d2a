import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useCluster } from './support/cluster.js';
import { waitFor } from './support/util.js';

/** AlertDelivery's claim lease: another node takes a dead node's delivery after it. */
const CLAIM_LEASE_MS = 30_000;

describe('reliability: the node delivering an alert dies', () => {
  const cluster = useCluster('alert-crash');

  it('SIGKILL of the node whose request the receiver holds open: another node delivers it, with the same webhook-id', () =>
    cluster().scenario(async () => {
      const c = cluster();
      const seen: { id: string; at: number }[] = [];
      let held: ServerResponse | undefined;
      const receiver = createServer((req, res) => {
        seen.push({ id: String(req.headers['webhook-id']), at: Date.now() });
        req.resume();
        if (seen.length === 1)
          held = res; // the first attempt never gets its answer
        else res.writeHead(200).end('ok');
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
        const env = { ORBIT_ALERTS_ALLOW_PRIVATE: 'true', ORBIT_POLL_INTERVAL_MS: '200' };
        const [apiNode, a, b] = await c.startNodes(
          { name: 'api', role: 'api', env },
          { name: 'worker-a', role: 'worker', env },
          { name: 'worker-b', role: 'worker', env },
        );
        const api = c.client(apiNode!);
        // B is frozen while A runs, consumes and claims; with no channel yet, B holds no lock
        b!.signal('SIGSTOP');
        let killedAt: number;
        try {
          await api.expect(201, 'POST', '/channels', { name: 'hook', type: 'webhook', url });
          const job = await api.expect(201, 'POST', '/jobs', {
            name: 'fails',
            command: 'exit 1',
            cronExpression: '0 0 1 1 *',
            alerts: [{ channel: 'hook' }],
          });
          await api.trigger(job.id as string);
          await waitFor(
            () => (seen.length === 1 ? true : undefined),
            'the first attempt to reach the receiver',
            20_000,
            20,
          );
          killedAt = Date.now();
          a!.signalGroup('SIGKILL');
          await a!.exited;
          held?.destroy();
        } finally {
          b!.signal('SIGCONT');
        }
        const [delivery] = await waitFor(
          async () => {
            const { items } = await api.expect(200, 'GET', '/deliveries');
            return items[0]?.status === 'DELIVERED' ? items : undefined;
          },
          'the delivery to be delivered by worker-b',
          CLAIM_LEASE_MS + 30_000,
          200,
        );
        expect(seen).toHaveLength(2);
        expect(seen[1]!.id).toBe(seen[0]!.id);
        expect(seen[0]!.id).toBe(`msg_${delivery.id}`);
        expect(seen[1]!.at - killedAt).toBeGreaterThan(CLAIM_LEASE_MS - 10_000);
        // the dead node's attempt left no record; worker-b's second attempt is the one listed
        expect(delivery.attempts).toEqual([expect.objectContaining({ attempt: 2, httpStatus: 200 })]);
      } finally {
        await new Promise<void>((resolve) => receiver.close(() => resolve()));
      }
    }));
});
