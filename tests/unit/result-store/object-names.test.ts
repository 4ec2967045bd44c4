import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createObjectNames } from "@/server/result-store/object-names";

/** The bucket's names for result keys: opaque, prefix-keeping, and read back only by their own secret. */
describe("object names", () => {
  const names = createObjectNames("master");
  const project = randomUUID();

  it("name every segment opaquely, alike for every instance with the same secret, differently under another", () => {
    const name = names.nameOf(`${project}/src/variant`);
    expect(name).toMatch(/^[A-Za-z0-9_-]+\/[A-Za-z0-9_-]{22}\/[A-Za-z0-9_-]{22}$/);
    for (const clear of [project, project.slice(0, 8), "src", "variant"]) expect(name).not.toContain(clear);
    expect(createObjectNames("master").nameOf(`${project}/src/variant`)).toBe(name);
    const other = createObjectNames("another").nameOf(`${project}/src/variant`).split("/");
    name.split("/").forEach((segment, i) => expect(other[i]).not.toBe(segment));
  });

  it("name alike after more than they keep was named in between: 1,000 keys of 8 KB each", () => {
    const fresh = createObjectNames("master");
    const first = fresh.nameOf(`${project}/src/variant`);
    for (let i = 0; i < 1_000; i++) fresh.nameOf(`${project}/${"s".repeat(8_000)}${i}/variant`);
    expect(fresh.nameOf(`${project}/src/variant`)).toBe(first);
    expect(createObjectNames("master").nameOf(`${project}/src/variant`)).toBe(first);
  });

  it("keep prefixes: a project's and a source's names start every name of their results", () => {
    const full = names.nameOf(`${project}/src/variant`);
    expect(full.startsWith(`${names.nameOf(project)}/`)).toBe(true);
    expect(full.startsWith(`${names.nameOf(`${project}/src`)}/`)).toBe(true);
    // A segment is named with its parents: the same source in another project is another name.
    expect(names.nameOf(`${randomUUID()}/src`).split("/")[1]).not.toBe(names.nameOf(`${project}/src`).split("/")[1]);
  });

  it("read the project back from its own names only: not from a clear id, another secret's name or an altered one", () => {
    expect(names.projectOf(names.nameOf(`${project}/src/variant`))).toBe(project);
    expect(names.projectOf(names.nameOf("p"))).toBe("p");
    expect(names.projectOf(`${project}/src/variant`)).toBeNull();
    expect(names.projectOf(createObjectNames("another").nameOf(project))).toBeNull();
    const sealed = Buffer.from(names.nameOf(project), "base64url");
    sealed.writeUInt8(sealed.readUInt8(sealed.length - 1) ^ 1, sealed.length - 1);
    expect(names.projectOf(sealed.toString("base64url"))).toBeNull();
    expect(names.projectOf("")).toBeNull();
  });
});
