import { describe, expect, it } from "vitest";
import { invitationTokenIn, onboardingStep } from "@/lib/first-steps";

const nobody = { pendingTeamSlug: null, teams: [] };

describe("where onboarding sends a signed-in account", () => {
  it("asks for the name of the team made at sign-up, whatever comes next", () => {
    const pending = { pendingTeamSlug: "ada-3f2a1c", teams: [{ slug: "ada-3f2a1c" }] };
    expect(onboardingStep(pending, "/")).toEqual({ kind: "name-team" });
    expect(onboardingStep(pending, "/invite/abc_DEF-123")).toEqual({ kind: "name-team" });
  });

  it("sends the first account to the team it adopted (the quickstart's demo), not to a form", () => {
    expect(onboardingStep({ pendingTeamSlug: null, teams: [{ slug: "demo" }] }, "/")).toEqual({
      kind: "go",
      to: "/t/demo",
    });
    expect(onboardingStep({ pendingTeamSlug: null, teams: [{ slug: "demo" }] }, "/t/demo/usage")).toEqual({
      kind: "go",
      to: "/t/demo/usage",
    });
  });

  it("sends an account made from an invitation to it, and asks for a team once it was declined", () => {
    expect(onboardingStep(nobody, "/invite/abc_DEF-123")).toEqual({ kind: "go", to: "/invite/abc_DEF-123" });
    expect(onboardingStep(nobody, "/")).toEqual({ kind: "name-team" });
    expect(onboardingStep(nobody, "/t/elsewhere")).toEqual({ kind: "name-team" });
  });
});

describe("the invitation a sign-up started from", () => {
  it("is read from next=/invite/{token} only", () => {
    expect(invitationTokenIn("/invite/abc_DEF-123")).toBe("abc_DEF-123");
    for (const next of ["/", "/invite/", "/invite/a/b", "/invite/a?x=1", "/t/invite/abc", `/invite/${"a".repeat(201)}`])
      expect(invitationTokenIn(next), next).toBeNull();
  });
});
