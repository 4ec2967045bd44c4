import { describe, expect, it } from "vitest";
import { AppError } from "@/server/errors";
import { assertCan, atLeast, can, permissions, teamRoles } from "@/server/tenancy/roles";

describe("roles table", () => {
  it("orders the roles owner > admin > member", () => {
    expect(
      atLeast("owner", "admin") &&
        atLeast("admin", "member") &&
        !atLeast("member", "admin") &&
        !atLeast("admin", "owner"),
    ).toBe(true);
  });

  it("gives every higher role everything a lower one may do", () => {
    for (const permission of Object.keys(permissions) as Array<keyof typeof permissions>) {
      const allowed = teamRoles.map((role) => can(role, permission));
      // teamRoles is owner, admin, member: once refused, every lower role is refused too.
      expect(allowed.indexOf(false) === -1 || allowed.slice(allowed.indexOf(false)).every((a) => !a), permission).toBe(
        true,
      );
    }
  });

  it("refuses with NOT_PERMITTED, a 403", () => {
    expect(() => assertCan("member", "project.delete")).toThrow(AppError);
    const refusal = (() => {
      try {
        assertCan("admin", "team.delete");
        return null;
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toMatchObject({ status: 403, code: "NOT_PERMITTED" });
    expect(() => assertCan("owner", "team.delete")).not.toThrow();
  });
});
