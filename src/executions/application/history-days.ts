import { HistoryDay } from '../domain/history-day.js';

/**
 * What dropping a day did: the runs it deleted (PostgreSQL's estimate of the day's rows, once it
 * has one, less those kept), and those it kept (copied out before the drop).
 */
export interface DroppedDay {
  dropped: number;
  kept: number;
}

/**
 * The history's UTC days (partitions of the finished runs by creation day): made ahead of the
 * runs that need them, and dropped whole by retention. Every change is made by one node at a time
 * (the others find it done, or skip it); none ever refuses a run: a run whose day is missing is
 * stored apart until its day is made, and then moved into it.
 */
export abstract class HistoryDays {
  /**
   * Makes each of `days` that is missing, moving into it the runs stored apart for want of it;
   * answers the days it made (none when another node is at it).
   */
  abstract make(days: HistoryDay[]): Promise<HistoryDay[]>;
  /** The days stored, oldest first (the history from before the days is not one of them). */
  abstract list(): Promise<HistoryDay[]>;
  /**
   * Drops the day, which must be the oldest: its runs that `finishedBefore` and `keepPerJob` let go
   * are deleted with it; the others (among the newest `keepPerJob` of their job, or finished since)
   * are kept, with what retention kept of the days dropped before. Null when another node is at it.
   */
  abstract drop(day: HistoryDay, finishedBefore: Date, keepPerJob: number): Promise<DroppedDay | null>;
}
