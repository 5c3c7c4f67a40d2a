/**
 * When a view reads the API again: at once when asked, but never two reads at a time and never
 * two starts closer than `gapMs`. Requests made meanwhile fold into one read after the gap, so a
 * burst of 2,000 events costs a handful of reads, and the last state is always read after it.
 */
export class Rereads {
  private wanted = false;
  private reading = false;
  private lastStart = -Infinity;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;

  constructor(
    private readonly read: () => Promise<void>,
    private readonly gapMs: number,
    /** While this holds (a hidden tab), requests wait; `resume()` when it stops holding. */
    private readonly held: () => boolean = () => false,
  ) {}

  request(): void {
    this.wanted = true;
    this.pump();
  }

  resume(): void {
    this.pump();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private pump(): void {
    if (this.stopped || this.reading || !this.wanted || this.timer !== undefined || this.held()) return;
    const wait = this.lastStart + this.gapMs - Date.now();
    if (wait > 0) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.pump();
      }, wait);
      return;
    }
    this.wanted = false;
    this.reading = true;
    this.lastStart = Date.now();
    void this.read()
      .catch(() => undefined)
      .finally(() => {
        this.reading = false;
        this.pump();
      });
  }
}
