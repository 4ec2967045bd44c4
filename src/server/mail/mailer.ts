import { lazyOnce } from "@/server/lazy-once";
import type { Transporter } from "nodemailer";
import { oneLine } from "./plain-text";

export interface MailMessage {
  to: string;
  /** Keep tenant-chosen text out of it: an inbox lists subjects as the sender's own words. */
  subject: string;
  /** The only part (text/plain): tenant-chosen text goes in through plain-text.ts. */
  text: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/**
 * SMTP through nodemailer when SMTP_URL is set (`smtp://user:pass@host:587`, `smtps://…:465`); null
 * otherwise, and the dashboard shows invitation links to copy instead of mailing them.
 */
export function createMailer(settings: { url: string; from: string } | null): Mailer | null {
  if (!settings) return null;
  // Loaded by the first invitation mailed, not by every cold start.
  const transporter = lazyOnce(async (): Promise<Transporter> => {
    const { default: nodemailer } = await import("nodemailer");
    // Bounded: a mail server that hangs holds an invitation or an alert check for seconds, not the
    // library's default ten minutes. The URL's own query settings win over these.
    return nodemailer.createTransport({
      url: settings.url,
      connectionTimeout: 15_000,
      greetingTimeout: 15_000,
      socketTimeout: 30_000,
    });
  });
  return {
    async send(message) {
      // A subject is one header line whatever a caller put in it: no line break of a name's making
      // reaches the headers (nodemailer folds them into spaces too; this does not depend on it).
      const subject = oneLine(message.subject);
      const mail = { from: settings.from, to: message.to, subject, text: message.text };
      await (await transporter()).sendMail(mail);
    },
  };
}
