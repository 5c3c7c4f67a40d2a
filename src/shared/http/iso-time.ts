const pad2 = (n: number): string => (n < 10 ? `0${n}` : `${n}`);
const pad3 = (n: number): string => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/**
 * Exactly `date.toISOString()`, in about half the time for the years 1000–9999 (V8's goes
 * through its runtime): a page of 50 executions formats 200 timestamps per request. Other
 * years, and invalid dates (RangeError), are left to toISOString.
 */
export function isoTime(date: Date): string {
  const year = date.getUTCFullYear();
  if (!(year >= 1000 && year <= 9999)) return date.toISOString();
  return (
    `${year}-${pad2(date.getUTCMonth() + 1)}-${pad2(date.getUTCDate())}` +
    `T${pad2(date.getUTCHours())}:${pad2(date.getUTCMinutes())}:${pad2(date.getUTCSeconds())}` +
    `.${pad3(date.getUTCMilliseconds())}Z`
  );
}
