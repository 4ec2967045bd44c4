import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { LeaveTeam, leaveRefusal } from "@/components/teams/leave-team";

const member = (role: "owner" | "admin" | "member") => ({ role });

describe("leaving a team", () => {
  it("is refused to its last owner, with the server's reason; another owner or any other role may leave", () => {
    expect(leaveRefusal("owner", [member("owner"), member("admin")])).toBe(
      "You are the last owner: make someone else owner or delete the team",
    );
    expect(leaveRefusal("owner", [member("owner"), member("owner")])).toBeNull();
    expect(leaveRefusal("admin", [member("owner"), member("admin")])).toBeNull();
    expect(leaveRefusal("member", [member("owner"), member("member")])).toBeNull();
  });

  it("shows the last owner a disabled button, described by why", () => {
    const reason = "You are the last owner: make someone else owner or delete the team";
    const html = renderToStaticMarkup(createElement(LeaveTeam, { refusal: reason, onLeave: async () => undefined }));
    const button = /<button[^>]*>.*?Leave team<\/button>/.exec(html)?.[0] ?? "";
    expect(button).toContain('disabled=""');
    const describedBy = /aria-describedby="([^"]+)"/.exec(button)?.[1];
    expect(describedBy).toBeDefined();
    expect(html).toContain(`id="${describedBy}"`);
    expect(html).toContain(reason);
  });

  it("offers the others the button, which asks for confirmation", () => {
    const html = renderToStaticMarkup(createElement(LeaveTeam, { refusal: null, onLeave: async () => undefined }));
    const button = /<button[^>]*>.*?Leave team<\/button>/.exec(html)?.[0] ?? "";
    expect(button).not.toContain('disabled=""');
    expect(button).toContain('aria-haspopup="dialog"');
  });
});
