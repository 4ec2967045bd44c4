import type { InputHTMLAttributes } from "react";

/**
 * Mail to the team's admins, where the instance can send it. Without SMTP nothing would ever be mailed:
 * the card says so and points at what does work, the banner. The saved choice is kept either way (it
 * takes effect once the operator configures mail).
 */
export function MailAdminsChoice({
  mailConfigured,
  checkbox,
}: {
  mailConfigured: boolean;
  checkbox: InputHTMLAttributes<HTMLInputElement>;
}) {
  if (!mailConfigured)
    return (
      <p className="text-sm text-ink-soft" data-testid="alerts-no-mail">
        Alerts are not mailed: this server has no mail configured (its operator sets{" "}
        <code className="font-mono text-xs">SMTP_URL</code>). They show in the banner at the top of every team page, for
        the team&apos;s admins and owners, as long as they hold.
      </p>
    );
  return (
    <label className="flex items-start gap-2 text-sm">
      <input className="mt-0.5 size-4" {...checkbox} />
      Mail the team&apos;s admins (once per alert and window; the banner shows alerts either way)
    </label>
  );
}
