import { Clock } from '../domain/clock.js';

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}
