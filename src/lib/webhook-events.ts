import { auditActions, type AuditAction } from "@/lib/audit-actions";

/** The alerts a webhook can be sent (the team's alert kinds), as the console lists them. */
export const webhookAlertEvents = {
  "alert.keyDayLimit": "An API key is near its day limit",
  "alert.errorRate": "A project's requests are failing",
  "alert.keyExpiry": "An API key expires soon",
  "alert.bucketCredentials": "A bucket refuses its credentials",
  "alert.keySpendCap": "An API key is near or at its spend cap",
} as const;

/** A team's audit actions (not the instance's: sign-ins and the like belong to no team). */
export const webhookAuditActions = (Object.keys(auditActions) as AuditAction[]).filter(
  (action) => !("instance" in auditActions[action]),
);

export type WebhookEvent = keyof typeof webhookAlertEvents | `audit.${AuditAction}`;

export const webhookEventNames: string[] = [
  ...Object.keys(webhookAlertEvents),
  ...webhookAuditActions.map((action) => `audit.${action}`),
];

/** Sent by "Send test" only: never chosen, always accepted. */
export const WEBHOOK_TEST_EVENT = "webhook.test";

export const WEBHOOK_FORMATS = {
  standard: "JSON, signed (Standard Webhooks)",
  slack: "Slack (incoming webhook: a line of text)",
} as const;
export type WebhookFormat = keyof typeof WEBHOOK_FORMATS;
