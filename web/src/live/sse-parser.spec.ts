import { SseParser, type SseMessage } from './sse-parser.js';

/** Everything the parser makes of the stream when it arrives in these pieces. */
function parse(chunks: string[], lastEventId?: string): { messages: SseMessage[]; lastEventId: string } {
  const parser = new SseParser(lastEventId);
  const messages = chunks.flatMap((chunk) => parser.push(chunk));
  return { messages, lastEventId: parser.lastEventId };
}

/** Every way of cutting `text` in two, and into single characters. */
function splits(text: string): string[][] {
  const twoPieces = Array.from({ length: text.length + 1 }, (_, i) => [text.slice(0, i), text.slice(i)]);
  return [...twoPieces, [...text]];
}

const STREAM =
  ': following events\nid: 41\n\n' +
  'id: 42\ndata: {"seq":42,"type":"execution.queued"}\n\n' +
  ': keep-alive\n\n' +
  'id: 43\ndata: first line\ndata: second line\r\n\r\n' +
  'data:no space\rdata:  two spaces\r\r' +
  'data: a\r\ndata: b\n\n';

describe('SseParser', () => {
  it('reads messages, joins multi-line data, skips comments, strips one space after the colon', () => {
    expect(parse([STREAM])).toEqual({
      messages: [
        { event: 'message', id: '42', data: '{"seq":42,"type":"execution.queued"}' },
        { event: 'message', id: '43', data: 'first line\nsecond line' },
        { event: 'message', id: '43', data: 'no space\n two spaces' },
        { event: 'message', id: '43', data: 'a\nb' },
      ],
      lastEventId: '43',
    });
  });

  it('gives the same result however the chunks split the text, CR LF pairs too', () => {
    const whole = parse([STREAM]);
    for (const chunks of splits(STREAM)) expect(parse(chunks)).toEqual(whole);
  });

  it('an id without data moves lastEventId and makes no message', () => {
    expect(parse([': following events\nid: 4210\n\n'])).toEqual({ messages: [], lastEventId: '4210' });
  });

  it('a frame cut off before its blank line neither dispatches nor moves lastEventId', () => {
    expect(parse(['id: 7\ndata: done\n\nid: 8\ndata: cut'])).toEqual({
      messages: [{ event: 'message', id: '7', data: 'done' }],
      lastEventId: '7',
    });
  });

  it('starts from the id it resumes after, and keeps it for messages that name none', () => {
    expect(parse(['data: x\n\n'], '99')).toEqual({
      messages: [{ event: 'message', id: '99', data: 'x' }],
      lastEventId: '99',
    });
  });

  it('reads event names, a field without a colon, and ignores unknown fields and a leading BOM', () => {
    expect(parse(['\uFEFFevent: ping\ndata\nretry: 10\nfoo: bar\n\ndata: after\n\n'])).toEqual({
      messages: [
        { event: 'ping', id: '', data: '' },
        { event: 'message', id: '', data: 'after' },
      ],
      lastEventId: '',
    });
  });
});
