import { describeError, type Logger } from "@/server/log";
import type { Mailer } from "@/server/mail/mailer";

/**
 * Mails the invitation link when SMTP is configured. The link is always shown to the admin as well,
 * so a failed send is logged and reported (emailed: false), never an error: the invitation exists.
 */
export async function sendInvitationEmail(
  deps: { mailer: Mailer | null; logger: Logger },
  invitation: { to: string; link: string; teamName: string; inviter: string },
): Promise<boolean> {
  if (!deps.mailer) return false;
  try {
    await deps.mailer.send({
      to: invitation.to,
      subject: `${invitation.inviter} invited you to ${invitation.teamName} on OptStuff`,
      text: `${invitation.inviter} invited you to join the team "${invitation.teamName}" on OptStuff.\n\nAccept the invitation (valid for 7 days):\n${invitation.link}\n\nIf you did not expect this email, ignore it.`,
    });
    return true;
  } catch (error) {
    deps.logger.log("error", "invitation email failed", describeError(error));
    return false;
  }
}
