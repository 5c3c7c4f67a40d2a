import { ATTEMPT_ERRORS, DeliveryAttempt, DETAILS_FOR_ADMINS, retryDelayMs, statusOnly } from './delivery.js';

describe('retry delays of a delivery', () => {
  it('double per attempt, between half and all of the doubled base', () => {
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, 1000, 0))).toEqual([500, 1000, 2000, 4000]);
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, 1000, 0.999999))).toEqual([1000, 2000, 4000, 8000]);
  });

  it('never exceed an hour, however many attempts', () => {
    expect(retryDelayMs(40, 10_000, 0.999999)).toBe(3_599_998);
    expect(retryDelayMs(1000, 10_000, 0)).toBe(1_800_000);
  });
});

describe('an attempt below admin', () => {
  const attempt = (outcome: Partial<DeliveryAttempt>): DeliveryAttempt => ({
    attempt: 1,
    at: new Date(0),
    ok: false,
    httpStatus: null,
    smtpResponse: null,
    error: null,
    latencyMs: 3,
    ...outcome,
  });

  it.each([
    [
      { httpStatus: 500, error: 'HTTP 500: {"internal":"db at 10.0.0.7"}' },
      { httpStatus: 500, error: 'HTTP 500' },
    ],
    [
      { ok: true, httpStatus: 204 },
      { httpStatus: 204, error: null },
    ],
    [
      { smtpResponse: '535 5.7.8 Authentication failed for orbit@mail.internal', error: 'Invalid login: 535 …' },
      { smtpResponse: '535', error: 'SMTP 535' },
    ],
    [
      { ok: true, smtpResponse: '250 2.0.0 Ok: queued as 4F2A1' },
      { smtpResponse: '250', error: null },
    ],
    [{ error: 'connect ECONNREFUSED 10.0.0.7:8080' }, { error: DETAILS_FOR_ADMINS }],
    [{ error: 'hooks.example.com resolves to 10.0.0.7 is a private address; …' }, { error: DETAILS_FOR_ADMINS }],
    ...Object.values(ATTEMPT_ERRORS).map((error) => [{ error }, { error }]),
  ] as Array<[Partial<DeliveryAttempt>, Partial<DeliveryAttempt>]>)(
    '%j shows the status only: %j',
    (outcome, shown) => {
      expect(statusOnly(attempt(outcome))).toEqual(attempt({ ...outcome, ...shown }));
    },
  );
});
