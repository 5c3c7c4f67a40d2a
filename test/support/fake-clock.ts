import { Clock } from '../../src/shared/domain/clock.js';

/** A clock that moves only when told to. */
export class FakeClock extends Clock {
  constructor(private current: Date = new Date('2026-11-30T10:00:00.000Z')) {
    super();
  }

  now(): Date {
    return new Date(this.current.getTime());
  }

  set(instant: Date | string): void {
    this.current = new Date(instant);
  }

  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}
