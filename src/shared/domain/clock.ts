/** The only source of "now" for the domain and the runtime, so tests can freeze or move time. */
export abstract class Clock {
  abstract now(): Date;
}
