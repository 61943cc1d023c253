// SPEC D4 (decision 081): minutes in words, as the ticket page and "My week" show them: "1 h 30 min", "45 min",
// "−15 min" (a correction), "0 min".

export function minutesText(total: number): string {
  const sign = total < 0 ? '−' : '';
  const m = Math.abs(total);
  const h = Math.floor(m / 60);
  const rest = m % 60;
  if (h === 0) return `${sign}${rest} min`;
  return rest === 0 ? `${sign}${h} h` : `${sign}${h} h ${rest} min`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** "9 Mar" for "2032-03-09" (the year too when `withYear`). */
export function dayText(date: string, withYear = false): string {
  const [y, m, d] = date.split('-').map(Number);
  return `${d} ${MONTHS[m - 1] ?? m}${withYear ? ` ${y}` : ''}`;
}

/** "Tue 9 Mar" for "2032-03-09". */
export function weekdayText(date: string): string {
  const [y, m, d] = date.split('-').map(Number);
  const dow = (new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7;
  return `${WEEKDAYS[dow]} ${dayText(date)}`;
}
