import { eq, sql } from "drizzle-orm";
import { user } from "@/server/db/schema";
import { AppError } from "@/server/errors";
import type { TenancyClock, TenancyDeps } from "./deps";
import { findPendingInvitation, hasPendingInvitation } from "./invitations";

/**
 * Who may create an account (OPTSTUFF_REGISTRATION, OPTSTUFF_REGISTRATION_EMAIL_DOMAINS). Whatever
 * the policy, the first account of an instance is admitted and becomes its owner: whoever set the
 * server up. `open` admits anyone; a domain list admits addresses at those domains, and only when a
 * provider (GitHub, Google) has verified them, since OptStuff sends no verification mail and a typed
 * address proves nothing. Invited addresses are always admitted: from the invitation link for a
 * password sign-up (the link is the capability, not the address), by the verified address for a
 * provider sign-up (whose round trip loses the link).
 */
export type RegistrationMode = "open" | "invite-only";

export interface RegistrationPolicy {
  mode: RegistrationMode;
  /** Lower-case domains, e.g. `example.com` (subdomains are not included). */
  emailDomains: readonly string[];
}

export interface AccountCandidate {
  email: string;
  /** A provider vouches for the address. */
  emailVerified: boolean;
  /** The token of the invitation link the sign-up started from, if any. */
  invitationToken: string | null;
}

/** What the sign-up page offers: a form, a form for the invited address, or why there is none. */
export type SignUpOffer =
  | { kind: "open" }
  | { kind: "first-account" }
  | { kind: "invited"; email: string; token: string }
  | { kind: "closed"; emailDomains: string[] };

const anyoneMay = (policy: RegistrationPolicy) => policy.mode === "open" && policy.emailDomains.length === 0;

/** Any 64-bit number of our own: the advisory lock that orders account creations. */
const ACCOUNT_CREATION_LOCK = 0x6f707473_74756672n;

/**
 * Inside the sign-up transaction, before its row is written: waits for any other account being created
 * to commit (the lock is the transaction's, released at its end). The policy admitted this account
 * earlier, outside the lock; two sign-ups on an empty instance are both "the first" there, so the
 * caller asks again once it holds the lock.
 */
export async function lockAccountCreation(deps: Pick<TenancyDeps, "db">): Promise<void> {
  await deps.db.execute(sql`select pg_advisory_xact_lock(${ACCOUNT_CREATION_LOCK})`);
}

/** No account exists yet: the one being created will own the instance. */
export async function isFirstAccount(deps: Pick<TenancyDeps, "db">): Promise<boolean> {
  const [row] = await deps.db.select({ id: user.id }).from(user).limit(1);
  return row === undefined;
}

/** The account that set the instance up (`user.instance_role = 'owner'`), if it still exists. */
export async function findInstanceOwner(deps: Pick<TenancyDeps, "db">): Promise<{ id: string; email: string } | null> {
  const [row] = await deps.db
    .select({ id: user.id, email: user.email })
    .from(user)
    .where(eq(user.instanceRole, "owner"));
  return row ?? null;
}

/** Throws REGISTRATION_CLOSED (or INVITATION_EMAIL_MISMATCH) when the policy does not admit the candidate. */
export async function admitAccount(
  deps: TenancyClock,
  policy: RegistrationPolicy,
  candidate: AccountCandidate,
): Promise<void> {
  if (anyoneMay(policy) || (await isFirstAccount(deps))) return;
  const email = candidate.email.trim().toLowerCase();
  if (candidate.invitationToken) {
    const invitation = await findPendingInvitation(deps, candidate.invitationToken);
    if (invitation?.email === email) return;
    if (invitation)
      throw new AppError("INVITATION_EMAIL_MISMATCH", {
        message: `This invitation is for ${invitation.email}: sign up with that address`,
      });
    throw closed(policy, "This invitation link is no longer valid: ask a team admin for a new one");
  }
  if (candidate.emailVerified && policy.emailDomains.includes(email.slice(email.lastIndexOf("@") + 1))) return;
  if (candidate.emailVerified && (await hasPendingInvitation(deps, email))) return;
  throw closed(policy);
}

export async function signUpOffer(
  deps: TenancyClock,
  policy: RegistrationPolicy,
  invitationToken: string | null,
): Promise<SignUpOffer> {
  if (anyoneMay(policy)) return { kind: "open" };
  if (await isFirstAccount(deps)) return { kind: "first-account" };
  const invitation = invitationToken ? await findPendingInvitation(deps, invitationToken) : null;
  if (invitation && invitationToken) return { kind: "invited", email: invitation.email, token: invitationToken };
  return { kind: "closed", emailDomains: [...policy.emailDomains] };
}

function closed(policy: RegistrationPolicy, message?: string): AppError {
  const domains = policy.emailDomains.join(", ");
  const byDomain = domains
    ? `Registration on this server is by invitation, or with a GitHub or Google account whose verified address is at ${domains}`
    : undefined;
  return new AppError("REGISTRATION_CLOSED", { message: message ?? byDomain });
}
