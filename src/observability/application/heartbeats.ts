import { Injectable } from '@nestjs/common';

/** When a loop last passed, in epoch milliseconds; undefined before its first pass. */
export type LastPassAt = () => number | undefined;

/**
 * The loops a node runs that readiness watches (the worker's, on worker nodes). The module that
 * runs a loop registers it here, so that observability depends on none of them and a node
 * without the loop simply has none registered.
 */
@Injectable()
export class Heartbeats {
  private readonly loops = new Map<string, LastPassAt>();

  register(name: string, lastPassAt: LastPassAt): void {
    this.loops.set(name, lastPassAt);
  }

  registered(): ReadonlyMap<string, LastPassAt> {
    return this.loops;
  }
}
