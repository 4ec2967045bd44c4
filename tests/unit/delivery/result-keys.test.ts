import { describe, expect, it } from "vitest";
import { NO_PURGES } from "@/server/config-cache";
import { createPublicNames } from "@/server/delivery/public-names";
import { resultAddress as addressWith, sourceName, storePrefixOf } from "@/server/delivery/result-keys";
import { KEY_PATTERN } from "@/server/result-store/types";
import { parseSource } from "@/server/source";

const cat = parseSource("https://cdn.example.com/a/cat.jpg?v=1");
const dog = parseSource("https://cdn.example.com/a/dog.jpg");
const project = {
  id: "0b9f4a4e-5a0e-4c59-9f0b-111111111111",
  allowedSourceHosts: ["cdn.example.com"],
  cache: NO_PURGES,
};
const names = createPublicNames("test-master");
const resultAddress = (scope: typeof project, variant: string, location: typeof cat) =>
  addressWith(scope, variant, location, names);

describe("result addresses", () => {
  it("name the source without its query string, as the request log does", () => {
    expect(sourceName(cat)).toBe("https://cdn.example.com/a/cat.jpg");
    expect(sourceName(parseSource("local/photo.jpg"))).toBe("local/photo.jpg");
  });

  it("keep the variant's ETag until a purge, then change it for the purged source only", () => {
    const before = resultAddress(project, "VARIANT", cat);
    expect(before.etag).toBe(names.etag(project.id, "VARIANT", 0));
    const purged = { ...project, cache: { base: 0, sources: { "https://cdn.example.com/a/cat.jpg": 3 } } };
    const after = resultAddress(purged, "VARIANT", cat);
    expect(after.etag).toBe(names.etag(project.id, "VARIANT", 3));
    expect(after.storeKey).not.toBe(before.storeKey);
    expect(after.sourceKey).not.toBe(before.sourceKey);
    expect(resultAddress(purged, "OTHER", dog)).toEqual(resultAddress(project, "OTHER", dog));
    // A whole purge later than the source's moves every source on.
    const whole = { ...project, cache: { base: 5, sources: { "https://cdn.example.com/a/cat.jpg": 3 } } };
    expect(resultAddress(whole, "VARIANT", cat).etag).toBe(names.etag(project.id, "VARIANT", 5));
    expect(resultAddress(whole, "OTHER", dog).etag).toBe(names.etag(project.id, "OTHER", 5));
  });

  it("are store keys the store accepts, under the prefixes a purge deletes, scoped by project and source policy", () => {
    const address = resultAddress(project, "VARIANT", cat);
    expect(address.storeKey).toMatch(KEY_PATTERN);
    expect(address.storeKey.startsWith(`${storePrefixOf(project.id, sourceName(cat))}/`)).toBe(true);
    expect(address.storeKey.startsWith(`${storePrefixOf(project.id)}/`)).toBe(true);
    expect(resultAddress({ ...project, id: "another" }, "VARIANT", cat).storeKey).not.toBe(address.storeKey);
    expect(resultAddress({ ...project, allowedSourceHosts: ["*.example.com"] }, "VARIANT", cat).storeKey).not.toBe(
      address.storeKey,
    );
    expect(address.tags).toEqual([names.projectTag(project.id), names.sourceTag(project.id, sourceName(cat))]);
    expect(address.tags.join(",")).not.toContain("cdn.example.com");
  });
});
