// Wall-clock times and durations as people read them. Pure (the current time is a parameter), so
// that the server, the browser and the tests format alike.

const pad = (n: number) => String(n).padStart(2, "0");

/** "2026-11-30 14:03:22" in UTC: the exact time, shown on hover and before the browser knows the zone. */
export function formatUtc(iso: string): string {
  const d = new Date(iso);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/**
 * A wall-clock time in one fixed shape, "30 Nov 2026, 15:03", in `timeZone` (the reader's own when
 * not given). Fixed rather than the locale's own, so that the server's UTC rendering and the
 * browser's local one differ only in the zone, never in shape, wherever a time is shown.
 */
export function formatLocal(iso: string, timeZone?: string): string {
  // Numbers only from Intl, names from here: ICU versions spell months differently ("Sep", "Sept"), and the server's text must be the browser's.
  const parts = Object.fromEntries(
    dateTimeFormat(timeZone)
      .formatToParts(new Date(iso))
      .map((part) => [part.type, part.value]),
  );
  return `${Number(parts.day)} ${MONTHS[Number(parts.month) - 1]} ${parts.year}, ${parts.hour}:${parts.minute}`;
}

// Made once per zone: constructing an Intl.DateTimeFormat costs far more than formatting with one, and a page shows many times.
const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();
function dateTimeFormat(timeZone: string | undefined): Intl.DateTimeFormat {
  const key = timeZone ?? "";
  let format = dateTimeFormats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat("en-GB", {
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
      ...(timeZone ? { timeZone } : {}),
    });
    dateTimeFormats.set(key, format);
  }
  return format;
}

/** The same shape in UTC, saying so: what a page shows before the browser knows the reader's zone. */
export const formatUtcShort = (iso: string) => `${formatLocal(iso, "UTC")} UTC`;

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 24 * 3600_000],
  ["month", 30 * 24 * 3600_000],
  ["day", 24 * 3600_000],
  ["hour", 3600_000],
  ["minute", 60_000],
  ["second", 1000],
];

const RELATIVE = new Intl.RelativeTimeFormat("en", { numeric: "auto", style: "short" });

/** "3 minutes ago", "in 2 days", "just now": the distance from `nowMs`. */
export function formatRelative(iso: string, nowMs: number): string {
  const delta = new Date(iso).getTime() - nowMs;
  if (Math.abs(delta) < 10_000) return "just now";
  const format = RELATIVE;
  for (const [unit, size] of UNITS) {
    if (Math.abs(delta) >= size || unit === "second") return format.format(Math.round(delta / size), unit);
  }
  return "just now";
}

/**
 * A duration in the unit that fits: "0.42 ms", "25.4 ms", "812 ms", "1.25 s", "42.0 s",
 * "3 min 20 s", "2 h 5 min".
 */
export function formatDuration(ms: number): string {
  const abs = Math.abs(ms);
  const sign = ms < 0 ? "−" : "";
  if (abs < 10) return `${sign}${abs.toFixed(2)} ms`;
  if (abs < 100) return `${sign}${abs.toFixed(1)} ms`;
  if (abs < 1000) return `${sign}${abs.toFixed(0)} ms`;
  if (abs < 10_000) return `${sign}${(abs / 1000).toFixed(2)} s`;
  if (abs < 60_000) return `${sign}${(abs / 1000).toFixed(1)} s`;
  if (abs < 3600_000) return `${sign}${Math.floor(abs / 60_000)} min ${Math.round((abs % 60_000) / 1000)} s`;
  return `${sign}${Math.floor(abs / 3600_000)} h ${Math.round((abs % 3600_000) / 60_000)} min`;
}

/** A service-clock instant as an offset from the run's start: "+25.41 ms after start". */
export function formatSinceStart(ms: number | null, startMs: number): string {
  if (ms === null) return "none";
  const delta = ms - startMs;
  return `${delta < 0 ? "−" : "+"}${formatDuration(Math.abs(delta))} ${delta < 0 ? "before" : "after"} the run's start`;
}

/** An offset from a run's start at the scale of an agent's run: "+0 ms", "+812 ms", "+4.19 s", "+3 min 20 s". */
export function formatElapsed(ms: number): string {
  if (ms === 0) return "+0 ms";
  return `${ms < 0 ? "−" : "+"}${formatDuration(Math.abs(ms))}`;
}

const pad3 = (n: number) => String(n).padStart(3, "0");
/** Years 0000 to 9999, where toISOString writes four digits of year. */
const FOUR_DIGIT_YEARS = { first: Date.parse("0000-01-01T00:00:00.000Z"), last: Date.parse("9999-12-31T23:59:59.999Z") };

/**
 * `new Date(ms).toISOString()`, in arithmetic: the same text, several times faster, and without a Date
 * (the web server's Date is Next.js's wrapper, slower again to construct). Receivers format a time
 * per event and per span. Outside years 0000 to 9999 it is toISOString itself.
 */
export function isoTime(ms: number): string {
  if (!Number.isInteger(ms) || ms < FOUR_DIGIT_YEARS.first || ms > FOUR_DIGIT_YEARS.last) return new Date(ms).toISOString();
  const days = Math.floor(ms / 86_400_000);
  let rest = ms - days * 86_400_000;
  // The civil date of a day count (days from civil, inverted: H. Hinnant's algorithm), in eras of 400 years from 0000-03-01.
  const shifted = days + 719_468;
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1_460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1_000);
  return `${String(year).padStart(4, "0")}-${pad(month)}-${pad(day)}T${pad(hours)}:${pad(minutes)}:${pad(seconds)}.${pad3(rest - seconds * 1_000)}Z`;
}
