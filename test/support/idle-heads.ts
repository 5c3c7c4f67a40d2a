import { jest } from '@jest/globals';
import { EventConsumers } from '../../src/events/application/event-consumers.js';

/**
 * Watches the heads that consumers find while idle (EventConsumers.idleHead, which their loops
 * call each poll): answers the highest one a consumer found so far, 0 before any.
 */
export function watchIdleHeads(consumers: EventConsumers): (consumer: string) => number {
  const heads = new Map<string, number>();
  const idleHead = consumers.idleHead.bind(consumers);
  jest.spyOn(consumers, 'idleHead').mockImplementation(async (consumer, idle) => {
    const seen = await idleHead(consumer, idle);
    if (seen.head !== null) heads.set(consumer, Math.max(seen.head, heads.get(consumer) ?? 0));
    return seen;
  });
  return (consumer) => heads.get(consumer) ?? 0;
}
