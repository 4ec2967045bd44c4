import { group, text, textWithDefault, type ValuesOf } from "@/server/config/setting";

export const mailSettings = group("Invitation e-mail", {
  SMTP_URL: text({
    defaultText: "none: the dashboard shows the invitation link to copy",
    doc: "The SMTP server invitations are sent through, as `smtp://user:pass@host:587`.",
    secret: true,
  }),
  SMTP_FROM: textWithDefault({ default: "OptStuff <no-reply@localhost>", doc: "The sender of invitation e-mails." }),
});

export type MailValues = ValuesOf<typeof mailSettings>;

/** Null without SMTP: invitation links are shown to copy, alerts show in the dashboard only. */
export const smtpOf = (v: MailValues): { url: string; from: string } | null =>
  v.SMTP_URL ? { url: v.SMTP_URL, from: v.SMTP_FROM } : null;
