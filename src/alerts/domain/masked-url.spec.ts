import { holdsMask, maskedUrl } from './masked-url.js';

describe('masked alert URLs', () => {
  it.each([
    ['https://hooks.slack.com/services/T000/B000/XXXXsecret', 'https://hooks.slack.com/…'],
    ['https://ops.example.com/orbit?token=s3cret', 'https://ops.example.com/…'],
    ['https://ops.example.com:8443/hooks/s3cret', 'https://ops.example.com:8443/…'],
    ['http://[2606:4700::1]/x', 'http://[2606:4700::1]/…'],
    ['https://ops.example.com/?token=s3cret', 'https://ops.example.com/…'],
    ['https://ops.example.com/#s3cret', 'https://ops.example.com/…'],
    ['https://ops.example.com', 'https://ops.example.com/'],
  ])('%s shows as %s', (url, shown) => {
    expect(maskedUrl(url)).toBe(shown);
  });

  it('a mask is told apart from a URL, written or percent-encoded', () => {
    expect(holdsMask('https://hooks.slack.com/…')).toBe(true);
    expect(holdsMask(new URL('https://hooks.slack.com/…').href)).toBe(true);
    expect(holdsMask('https://hooks.slack.com/services/T000/B000/XXXX')).toBe(false);
  });
});
