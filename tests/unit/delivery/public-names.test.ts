import { describe, expect, it } from "vitest";
import { NO_PURGES } from "@/server/config-cache";
import { createPublicNames } from "@/server/delivery/public-names";
import { resultAddress, sourceName } from "@/server/delivery/result-keys";
import { successHeaders } from "@/server/delivery/success-headers";
import { parseSource } from "@/server/source";

const cat = parseSource("https://cdn.example.com/a/cat.jpg");
const dog = parseSource("https://cdn.example.com/a/dog.jpg");
const project = {
  id: "0b9f4a4e-5a0e-4c59-9f0b-111111111111",
  allowedSourceHosts: ["cdn.example.com"],
  cache: NO_PURGES,
};
const other = { ...project, id: "7d1c2e3f-0000-4a4a-8b8b-222222222222" };
const names = createPublicNames("test-master");
const PURGES = 48_271;

const purged = (generation: number) => ({ ...project, cache: { base: generation, sources: {} } });

/** The headers a client and a CDN see for one variant. */
function publicHeaders(scope: typeof project, variant: string, location = cat): string[] {
  const address = resultAddress(scope, variant, location, names);
  const headers = successHeaders({
    etag: address.etag,
    tags: address.tags,
    maxSeconds: 31_536_000,
    immutable: true,
    negotiated: false,
    refererRestricted: false,
    requestId: "r",
    serverTiming: "total;dur=1",
  });
  return ["etag", "cache-tag", "surrogate-key", "vercel-cache-tag"].map((name) => headers.get(name) ?? "");
}

describe("public identifiers (Cache-Tag, ETag)", () => {
  it("carry no project id, source, variant or purge count: only keyed digests", () => {
    const values = publicHeaders(purged(PURGES), "VARIANT");
    const [etag, cacheTag] = values;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(cacheTag!.split(",")).toEqual([
      expect.stringMatching(/^optstuff-p-[A-Za-z0-9_-]{22}$/),
      expect.stringMatching(/^optstuff-s-[A-Za-z0-9_-]{22}$/),
    ]);
    for (const value of values) {
      for (const secret of [project.id, project.id.replaceAll("-", ""), "0b9f4a4e", "111111111111"])
        expect(value).not.toContain(secret);
      expect(value).not.toContain(String(PURGES));
      expect(value).not.toContain("cdn.example.com");
      expect(value).not.toContain("VARIANT");
    }
  });

  it("are stable across calls and instances sharing the master secret", () => {
    expect(publicHeaders(purged(3), "VARIANT")).toEqual(publicHeaders(purged(3), "VARIANT"));
    const again = createPublicNames("test-master");
    expect(again.projectTag(project.id)).toBe(names.projectTag(project.id));
    expect(again.sourceTag(project.id, sourceName(cat))).toBe(names.sourceTag(project.id, sourceName(cat)));
    expect(again.etag(project.id, "VARIANT", 3)).toBe(names.etag(project.id, "VARIANT", 3));
  });

  it("name alike after more than they keep was named in between: 1,000 sources of 8 KB each", () => {
    const fresh = createPublicNames("test-master");
    const first = fresh.sourceTag(project.id, sourceName(cat));
    for (let i = 0; i < 1_000; i++) fresh.sourceTag(project.id, `https://cdn.example.com/${i}/${"x".repeat(8_000)}`);
    expect(fresh.sourceTag(project.id, sourceName(cat))).toBe(first);
    expect(createPublicNames("test-master").sourceTag(project.id, sourceName(cat))).toBe(first);
  });

  it("change the ETag at every purge and keep the tags a purge names", () => {
    const etags = [0, 1, 2, PURGES].map((generation) => resultAddress(purged(generation), "VARIANT", cat, names));
    expect(new Set(etags.map((a) => a.etag)).size).toBe(4);
    // The tags do not move with purges: they are what a purge tells the CDN to drop.
    for (const address of etags) expect(address.tags).toEqual(etags[0]!.tags);
    // A purge of one source moves that source's ETag only.
    const sourcePurged = { ...project, cache: { base: 0, sources: { [sourceName(cat)]: 7 } } };
    expect(resultAddress(sourcePurged, "VARIANT", cat, names).etag).not.toBe(etags[0]!.etag);
    expect(resultAddress(sourcePurged, "OTHER", dog, names).etag).toBe(
      resultAddress(project, "OTHER", dog, names).etag,
    );
  });

  it("differ between projects, sources, variants and master secrets", () => {
    const mine = resultAddress(project, "VARIANT", cat, names);
    const theirs = resultAddress(other, "VARIANT", cat, names);
    expect(theirs.etag).not.toBe(mine.etag);
    expect(theirs.tags.filter((tag) => mine.tags.includes(tag))).toEqual([]);
    expect(resultAddress(project, "VARIANT", dog, names).tags[1]).not.toBe(mine.tags[1]);
    expect(resultAddress(project, "OTHER", cat, names).etag).not.toBe(mine.etag);
    const elsewhere = createPublicNames("another-master");
    expect(resultAddress(project, "VARIANT", cat, elsewhere).etag).not.toBe(mine.etag);
    expect(resultAddress(project, "VARIANT", cat, elsewhere).tags.filter((tag) => mine.tags.includes(tag))).toEqual([]);
  });
});
