import nodemailer from "nodemailer";

export interface MailMessage {
  to: string;
  subject: string;
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
  const transport = nodemailer.createTransport(settings.url);
  return {
    async send(message) {
      await transport.sendMail({ from: settings.from, to: message.to, subject: message.subject, text: message.text });
    },
  };
}
