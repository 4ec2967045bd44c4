const count = new Intl.NumberFormat("en", { maximumFractionDigits: 0 });
const compact = new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 1 });

export const formatCount = (n: number) => count.format(n);
export const formatCompact = (n: number) => compact.format(n);

/** Binary units, as browsers' network panels show them. */
const FORMAT_NAMES: Record<string, string> = {
  avif: "AVIF",
  webp: "WebP",
  jpeg: "JPEG",
  png: "PNG",
  gif: "GIF",
  svg: "SVG",
};

/** An output format as its users write it (AVIF, WebP), or as stored when unknown. */
export const formatName = (format: string) => FORMAT_NAMES[format] ?? format;

export function formatBytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = n;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(value >= 100 ? 0 : 1)} ${units[unit]}`;
}

export function formatPercent(ratio: number | null, digits = 1): string {
  return ratio === null ? "–" : `${(ratio * 100).toFixed(digits)}%`;
}

export function formatMs(ms: number | null): string {
  return ms === null ? "–" : ms < 10 && !Number.isInteger(ms) ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}

/** The change against the previous period, in words and an arrow, so it never relies on colour. */
export function describeTrend(
  current: number,
  previous: number,
): { text: string; direction: "up" | "down" | "flat" | "new" } {
  if (previous === 0)
    return current === 0 ? { text: "no change", direction: "flat" } : { text: "new in this period", direction: "new" };
  const change = (current - previous) / previous;
  if (Math.abs(change) < 0.0005) return { text: "no change", direction: "flat" };
  return {
    text: `${change > 0 ? "▲" : "▼"} ${Math.abs(change * 100).toFixed(1)}%`,
    direction: change > 0 ? "up" : "down",
  };
}

/** `YYYY-MM-DD HH:MM[:SS]` of an instant in UTC, without the zone (for columns headed "UTC"). */
export function utcStamp(at: Date | string, precision: "minute" | "second" = "second"): string {
  return new Date(at)
    .toISOString()
    .slice(0, precision === "minute" ? 16 : 19)
    .replace("T", " ");
}
