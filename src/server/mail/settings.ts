import { group, text, textWithDefault } from "@/server/config/setting";

export const mailSettings = group("Invitation e-mail", {
  SMTP_URL: text({
    defaultText: "none: the dashboard shows the invitation link to copy",
    doc: "The SMTP server invitations are sent through, as `smtp://user:pass@host:587`.",
    secret: true,
  }),
  SMTP_FROM: textWithDefault({ default: "OptStuff <no-reply@localhost>", doc: "The sender of invitation e-mails." }),
});
