import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { can, permissions, teamRoles, type Permission } from "@/server/tenancy/roles";

describe("docs/dashboard.md", () => {
  it("states the roles table exactly as src/server/tenancy/roles.ts has it", () => {
    const doc = readFileSync("docs/dashboard.md", "utf8");
    const section = doc.slice(doc.indexOf("<!-- roles:start -->"), doc.indexOf("<!-- roles:end -->"));
    const rows = section.split("\n").filter((line) => line.startsWith("| `"));
    const documented = Object.fromEntries(
      rows.map((line) => {
        const [action, ...cells] = line
          .split("|")
          .slice(1, -1)
          .map((c) => c.trim());
        return [action!.replaceAll("`", ""), cells.map((c) => c === "yes")];
      }),
    );
    const expected = Object.fromEntries(
      Object.keys(permissions).map((p) => [p, [...teamRoles].reverse().map((role) => can(role, p as Permission))]),
    );
    expect(documented).toEqual(expected);
  });
});
