import type { WebhookFormat } from "@/lib/webhook-events";

/** A delivery's payload as stored: `{ type, timestamp, data }` (Standard Webhooks' shape). */
export interface WebhookPayload {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/** What is posted: the payload itself, or Slack's `{ text }` line said from it. */
export function bodyOf(format: WebhookFormat, payload: WebhookPayload): string {
  return JSON.stringify(format === "slack" ? { text: slackText(payload) } : payload);
}

/**
 * One line for a Slack channel. Names are their owners' choosing: `&`, `<` and `>` are escaped as
 * Slack asks, so a team or key named `<!channel>` mentions nobody and links nowhere.
 */
export function slackText(payload: WebhookPayload): string {
  const data = payload.data;
  const team = escape(String((data.team as { name?: unknown } | undefined)?.name ?? "a team"));
  if (payload.type.startsWith("alert.")) {
    const link = typeof data.link === "string" ? ` <${escape(data.link)}|Open the dashboard>` : "";
    return `OptStuff · ${team}: ${escape(String(data.message ?? payload.type))}${link}`;
  }
  if (payload.type.startsWith("audit.")) {
    const actor = escape(String((data.actor as { label?: unknown } | undefined)?.label ?? "someone"));
    const target = escape(String((data.target as { label?: unknown } | undefined)?.label ?? ""));
    return `OptStuff · ${team}: ${actor} ${escape(String(data.says ?? payload.type))}${target ? `: ${target}` : ""}`;
  }
  return `OptStuff · ${team}: a test message from the team's webhook settings`;
}

function escape(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}
