import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { bodyOf, slackText } from "@/server/webhooks/bodies";
import { newWebhookSecret, signWebhook } from "@/server/webhooks/signing";

/** Our signature checked by the Standard Webhooks library receivers use, and Slack's line from a payload. */
describe("webhook signing", () => {
  const payload = { type: "audit.api_key.created", timestamp: "2026-12-01T08:00:00.000Z", data: { says: "x" } };

  it("verifies with the standardwebhooks library, and not with another secret or another body", () => {
    const secret = newWebhookSecret();
    const body = bodyOf("standard", payload);
    const headers = signWebhook(secret, "msg_audit_1", new Date(), body);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(payload);
    expect(() => new Webhook(newWebhookSecret()).verify(body, { ...headers })).toThrow();
    expect(() => new Webhook(secret).verify(body.replace("x", "y"), { ...headers })).toThrow();
  });

  it("is refused by a receiver once its timestamp is old: a replayed request does not verify", () => {
    const secret = newWebhookSecret();
    const body = bodyOf("standard", payload);
    const sentLongAgo = new Date(Date.now() - 10 * 60_000);
    expect(() => new Webhook(secret).verify(body, { ...signWebhook(secret, "msg_1", sentLongAgo, body) })).toThrow(
      /timestamp/i,
    );
  });

  it("makes a fresh 24-byte secret each time", () => {
    const [a, b] = [newWebhookSecret(), newWebhookSecret()];
    expect(a).not.toBe(b);
    expect(Buffer.from(a.slice("whsec_".length), "base64")).toHaveLength(24);
  });
});

describe("Slack's format", () => {
  it("says an audit action in a line, with names escaped so they mention and link nothing", () => {
    const text = slackText({
      type: "audit.member.removed",
      timestamp: "",
      data: {
        team: { name: "<!channel> & co" },
        actor: { label: "ann@example.com" },
        says: "removed a member",
        target: { label: "<https://evil.example|click>" },
      },
    });
    expect(text).toBe(
      "OptStuff · &lt;!channel&gt; &amp; co: ann@example.com removed a member: &lt;https://evil.example|click&gt;",
    );
    expect(JSON.parse(bodyOf("slack", { type: "webhook.test", timestamp: "", data: {} }))).toEqual({
      text: "OptStuff · a team: a test message from the team's webhook settings",
    });
  });
});
