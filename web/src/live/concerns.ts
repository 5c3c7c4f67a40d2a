import type { OrbitEvent } from '../api/client';

/** Any change of an execution's status. */
export const isExecutionEvent = (event: OrbitEvent): boolean => event.executionId !== null;

/** A run started or ended: what a worker's running count follows. */
export const startsOrEnds = (event: OrbitEvent): boolean =>
  isExecutionEvent(event) && (event.from === 'RUNNING' || event.to === 'RUNNING');
