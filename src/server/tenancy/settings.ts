import { z } from "zod";
import { choice, group, parsed, type ValuesOf } from "@/server/config/setting";
import type { RegistrationPolicy } from "./registration";

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/;

/** `Corp.Example, @team.example.` → `["corp.example", "team.example"]`; anything else is refused by name. */
export const emailDomains = z
  .string()
  .optional()
  .transform((text, ctx) => {
    const domains = (text ?? "")
      .split(",")
      .map((d) => d.trim().toLowerCase().replace(/^@/, "").replace(/\.$/, ""))
      .filter(Boolean);
    for (const domain of domains)
      if (!DOMAIN.test(domain)) ctx.addIssue({ code: "custom", message: `"${domain}" is not an e-mail domain` });
    return [...new Set(domains)];
  });

/** Who may create an account (docs/self-hosting.md, who may sign up). */
export const registrationSettings = group("Who may sign up", {
  OPTSTUFF_REGISTRATION: choice(["invite-only", "open"], {
    default: "invite-only",
    doc: "`invite-only`: the first account (the instance's owner), then only people with an invitation link; `open`: anyone (a hosted service).",
  }),
  OPTSTUFF_REGISTRATION_EMAIL_DOMAINS: parsed(emailDomains, {
    defaultText: "none",
    doc: "E-mail domains (comma-separated, such as `example.com`) whose GitHub- or Google-verified addresses may register without an invitation; with `open`, only these.",
  }),
});

export type RegistrationValues = ValuesOf<typeof registrationSettings>;

export const registrationOf = (v: RegistrationValues): RegistrationPolicy => ({
  mode: v.OPTSTUFF_REGISTRATION,
  emailDomains: v.OPTSTUFF_REGISTRATION_EMAIL_DOMAINS,
});
