import { InvalidArgumentError } from '../../shared/domain/domain-errors.js';
import { JobParameter, jobParametersOf, PARAMETER_LIMITS, parameterValuesFor } from './job-parameters.js';

/** Takes exponential time in a backtracking engine on a long value that does not match. */
const EVIL_PATTERN = '([a-z0-9]+\\.?)+';

function refusal(action: () => unknown): InvalidArgumentError {
  try {
    action();
  } catch (error) {
    if (error instanceof InvalidArgumentError) return error;
    throw error;
  }
  throw new Error('expected an InvalidArgumentError, but the call returned');
}

function declared(pattern: string): JobParameter[] {
  return jobParametersOf([{ name: 'HOST', pattern }]);
}

describe('parameter patterns', () => {
  it('a pattern matches the whole value, never a part of it', () => {
    const parameters = declared('staging|production');
    expect(parameterValuesFor(parameters, { HOST: 'production' })).toEqual({ HOST: 'production' });
    for (const value of ['staging2', 'preproduction', 'staging\n']) {
      expect(refusal(() => parameterValuesFor(parameters, { HOST: value })).message).toBe(
        'parameters.HOST must match staging|production',
      );
    }
  });

  it('a pattern that backtracks exponentially elsewhere is matched against a value of the largest size', () => {
    const parameters = declared(EVIL_PATTERN);
    const longest = `${'a'.repeat(PARAMETER_LIMITS.valueMaxBytes - 1)}!`;
    expect(refusal(() => parameterValuesFor(parameters, { HOST: longest })).field).toBe('parameters.HOST');
    expect(parameterValuesFor(parameters, { HOST: 'db1.example.org' })).toEqual({ HOST: 'db1.example.org' });
  });

  it.each([
    ['a backreference', '(a)\\1', 'invalid escape sequence: `\\1`'],
    ['a lookahead', 'prod(?=uction)', 'invalid or unsupported Perl syntax: `(?=`'],
    ['a negative lookahead', '(?!test).*', 'invalid or unsupported Perl syntax: `(?!`'],
    ['an unclosed group', '(staging', 'missing closing ): `(staging`'],
  ])('%s is refused, naming the parameter and why', (_case, pattern, reason) => {
    const error = refusal(() => jobParametersOf([{ name: 'A' }, { name: 'HOST', pattern }]));
    expect(error.field).toBe('parameters[1].pattern');
    expect(error.message).toBe(
      `parameters[1].pattern is not a regular expression Orbit accepts (RE2 syntax, without backreferences or lookaround): ${reason}`,
    );
  });

  it('a stored pattern that RE2 refuses refuses the run, naming the pattern, not the value', () => {
    const stored: JobParameter[] = [
      { name: 'HOST', description: null, default: null, required: false, pattern: 'a(?=b)' },
    ];
    const error = refusal(() => parameterValuesFor(stored, { HOST: 'a' }));
    expect(error.field).toBe('parameters.HOST');
    expect(error.message).toMatch(/^The pattern of parameters\.HOST is not a regular expression Orbit accepts/);
  });

  it('a default must match the pattern', () => {
    expect(refusal(() => jobParametersOf([{ name: 'HOST', default: 'qa', pattern: 'staging' }])).message).toBe(
      'parameters[0].default must match staging',
    );
  });
});
