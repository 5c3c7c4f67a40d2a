import { RUN_STATUSES } from '../../jobs/domain/run-status.js';
import { EXECUTION_STATUSES } from './execution-status.js';

describe('the statuses of an execution', () => {
  it('are the statuses the answers about a job show (RUN_STATUSES), in the same order', () => {
    expect(EXECUTION_STATUSES).toEqual([...RUN_STATUSES]);
  });
});
