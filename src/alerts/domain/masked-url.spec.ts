import { holdsMask, maskedUrl } from './masked-url.js';

describe('masked alert URLs', () => {
  it.each([
    // a provider's token in the last segment, its ids beside it
    ['https://hooks.slack.com/services/T000/B000/XXXXsecret', 'https://hooks.slack.com/services/…/…/…'],
    ['https://discord.com/api/webhooks/1234/abcdef', 'https://discord.com/api/webhooks/…/…'],
    ['https://ntfy.sh/mytopic', 'https://ntfy.sh/…'],
    ['https://hooks.zapier.com/hooks/catch/123/abcdef/', 'https://hooks.zapier.com/hooks/catch/…/…/'],
    ['https://ops.example.com:8443/hooks/s3cret', 'https://ops.example.com:8443/hooks/…'],
    ['https://ops.example.com/orbit-alerts', 'https://ops.example.com/…'],
    // a word shows unless it is last; anything else in the path does not
    ['https://ops.example.com/alerts/orbit', 'https://ops.example.com/alerts/…'],
    ['https://api.example.com/bot123:ABC/send', 'https://api.example.com/…/…'],
    ['https://ops.example.com/v2/my%20hook/x', 'https://ops.example.com/…/…/…'],
    ['http://[2606:4700::1]/x', 'http://[2606:4700::1]/…'],
    // the query's names show, never its values; a nameless or valueless parameter not at all
    ['https://ops.example.com/orbit?token=s3cret', 'https://ops.example.com/…?token=…'],
    ['https://ops.example.com/?token=s3cret&key=k3y', 'https://ops.example.com/?token=…&key=…'],
    ['https://ops.example.com/?s3cret', 'https://ops.example.com/?…'],
    ['https://ops.example.com/?s3cret=', 'https://ops.example.com/?…'],
    ['https://ops.example.com/?api_key1=x&=y', 'https://ops.example.com/?…&…'],
    // credentials and the fragment never show
    ['https://ops:pw-s3cret@ops.example.com/', 'https://…@ops.example.com/'],
    ['https://t0ken@ops.example.com/hooks', 'https://…@ops.example.com/…'],
    ['https://ops.example.com/#s3cret', 'https://ops.example.com/#…'],
    // nothing to hide
    ['https://ops.example.com', 'https://ops.example.com/'],
    ['https://ops.example.com/', 'https://ops.example.com/'],
  ])('%s shows as %s', (url, shown) => {
    expect(maskedUrl(url)).toBe(shown);
  });

  it('a mask is told apart from a URL, written or percent-encoded', () => {
    expect(holdsMask('https://hooks.slack.com/services/…/…/…')).toBe(true);
    expect(holdsMask(new URL('https://hooks.slack.com/services/…/…/…').href)).toBe(true);
    expect(holdsMask(new URL('https://…@ops.example.com/').href)).toBe(true);
    expect(holdsMask('https://hooks.slack.com/services/T000/B000/XXXX')).toBe(false);
  });
});
