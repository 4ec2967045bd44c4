import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { MailAdminsChoice } from "@/components/alerts/mail-admins-choice";

const checkbox = { type: "checkbox", name: "mailAdmins", defaultChecked: true };

describe("the alerts card's mail choice", () => {
  it("offers mail to the admins when the instance can send it", () => {
    const html = renderToStaticMarkup(createElement(MailAdminsChoice, { mailConfigured: true, checkbox }));
    expect(html).toContain("Mail the team&#x27;s admins");
    expect(html).toContain('name="mailAdmins"');
  });

  it("without mail configured, says so and offers what works instead: the banner, no mail checkbox", () => {
    const html = renderToStaticMarkup(createElement(MailAdminsChoice, { mailConfigured: false, checkbox }));
    expect(html).not.toContain("Mail the team&#x27;s admins");
    expect(html).not.toContain('name="mailAdmins"');
    expect(html).toContain("no mail configured");
    expect(html).toContain("SMTP_URL");
    expect(html).toContain("banner");
  });
});
