import { didYouMean, suggestion } from './did-you-mean.js';

const FIELDS = ['command', 'cronExpression', 'timezone', 'maxRetries', 'to', 'on'];

describe('didYouMean', () => {
  it.each([
    ['comand', 'command'],
    ['cronExpresion', 'cronExpression'],
    ['timezon', 'timezone'],
    ['CronExpression', 'cronExpression'],
    ['max_retries', 'maxRetries'],
  ])('%s is taken for %s', (typed, meant) => {
    expect(didYouMean(typed, FIELDS)).toBe(meant);
  });

  it.each(['owner', 'colour', 'x', 'tp2'])('%s is near nothing: no guess', (typed) => {
    expect(didYouMean(typed, FIELDS)).toBeUndefined();
  });

  it('with no known names there is nothing to suggest', () => {
    expect(didYouMean('command', [])).toBeUndefined();
  });

  it('the suggestion reads as a parenthesis, or is empty', () => {
    expect(suggestion('comand', FIELDS)).toBe(' (did you mean command?)');
    expect(suggestion('owner', FIELDS)).toBe('');
  });
});
