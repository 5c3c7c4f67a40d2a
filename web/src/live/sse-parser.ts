/** One message of a text/event-stream: `data` lines joined by newlines, under the id current at its end. */
export interface SseMessage {
  event: string;
  data: string;
  /** The last `id:` seen up to this message (ids carry over to later messages, as in EventSource). */
  id: string;
}

/**
 * The text/event-stream format as the HTML standard parses it, fed with text in chunks that may
 * split a line, or a CR LF pair, anywhere. A frame is dispatched at its blank line; a frame with
 * an `id:` and no data changes `lastEventId` without a message (Orbit's stream opens with one,
 * so a client that reconnects before any event still resumes where it started). `retry:` is left
 * out: the caller owns its backoff.
 */
export class SseParser {
  /** The id to resume from: only frames that ended count, so a frame cut by a drop is read again. */
  lastEventId: string;
  private pending = '';
  /** The previous chunk ended with CR: a LF opening the next one belongs to that line end. */
  private afterCr = false;
  private started = false;
  private data: string[] = [];
  private event = '';
  private id: string;

  constructor(lastEventId = '') {
    this.lastEventId = lastEventId;
    this.id = lastEventId;
  }

  push(chunk: string): SseMessage[] {
    let text = chunk;
    if (this.afterCr && text.startsWith('\n')) text = text.slice(1);
    this.afterCr = false;
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.startsWith('\uFEFF')) text = text.slice(1);
    }
    const messages: SseMessage[] = [];
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c !== '\n' && c !== '\r') continue;
      const line = this.pending + text.slice(start, i);
      this.pending = '';
      if (c === '\r') {
        if (i + 1 === text.length) this.afterCr = true;
        else if (text[i + 1] === '\n') i++;
      }
      start = i + 1;
      const message = this.line(line);
      if (message) messages.push(message);
    }
    this.pending += text.slice(start);
    return messages;
  }

  private line(line: string): SseMessage | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    return undefined;
  }

  private dispatch(): SseMessage | undefined {
    this.lastEventId = this.id;
    const data = this.data;
    const event = this.event;
    this.data = [];
    this.event = '';
    if (data.length === 0) return undefined;
    return { event: event || 'message', data: data.join('\n'), id: this.id };
  }
}
