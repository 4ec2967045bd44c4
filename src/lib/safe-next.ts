/**
 * The `next` parameter as a path on our own site, or "/" (no open redirect). The value is resolved as
 * a browser would resolve it against the site's origin (backslashes read as slashes, tabs and
 * newlines dropped, dot segments applied), and only a result on that same origin is kept, as its
 * path, query and fragment. Prefix checks on the raw string miss what browsers normalise:
 * `/\evil.example` and `/<tab>/evil.example` both lead off-site.
 */
export function safeNext(next: string | string[] | undefined, origin: string): string {
  const value = Array.isArray(next) ? next[0] : next;
  if (!value) return "/";
  let url: URL;
  try {
    url = new URL(value, origin);
  } catch {
    return "/";
  }
  // After dot segments are applied, `/.//evil.example` is the path `//evil.example`, which a browser
  // given it back as a Location would read as another host.
  if (url.origin !== new URL(origin).origin || url.pathname.startsWith("//")) return "/";
  return `${url.pathname}${url.search}${url.hash}`;
}
