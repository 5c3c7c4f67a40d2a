import { InvalidArgumentError } from '../../shared/domain/domain-errors.js';

/** The longest window a lane reads: a day (the dashboard asks for the last hour). */
export const LANE_MAX_HOURS = 24;

/** Refuses a window that ends before it starts or spans more than a lane reads. */
export function checkLaneWindow(from: Date, to: Date): void {
  if (from >= to) throw new InvalidArgumentError('from must be before to', 'from');
  if (to.getTime() - from.getTime() > LANE_MAX_HOURS * 3600_000) {
    throw new InvalidArgumentError(`to may be at most ${LANE_MAX_HOURS} hours after from`, 'to');
  }
}
