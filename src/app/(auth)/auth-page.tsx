import Link from "next/link";
import { redirect } from "next/navigation";
import { currentUser, safeNext } from "@/app/_lib/session";
import { procedures } from "@/app/_lib/trpc";
import { providerErrorMessage } from "@/lib/auth-errors";
import { invitationTokenIn } from "@/lib/first-steps";
import { AuthForm } from "@/components/auth/auth-form";

/**
 * Sign-in and sign-up pages: a signed-in visitor goes on to `next`; the providers come from config.
 * Sign-up shows what the registration policy allows this visitor: a form, a form for the address an
 * invitation names, or (invite-only, no invitation) why there is no form.
 */
export async function AuthPage({
  mode,
  searchParams,
}: {
  mode: "sign-in" | "sign-up";
  searchParams: Promise<{ next?: string | string[]; error?: string | string[] }>;
}) {
  const params = await searchParams;
  const next = safeNext(params.next);
  const providerError = providerErrorMessage(typeof params.error === "string" ? params.error : undefined);
  if (await currentUser()) redirect(next);
  const account = (await procedures()).account;
  if (mode === "sign-in") {
    return (
      <>
        <h1 className="mb-6 text-2xl font-semibold">Sign in</h1>
        <AuthForm
          mode="sign-in"
          next={next}
          providers={await account.signInProviders()}
          providerError={providerError}
        />
      </>
    );
  }
  const { offer, providers } = await account.signUpOffer({ invitation: invitationTokenIn(next) });
  if (offer.kind === "closed") {
    return (
      <>
        <h1 className="mb-4 text-2xl font-semibold">Registration is by invitation</h1>
        <div className="space-y-3 text-sm text-ink-soft">
          <p>
            Accounts on this OptStuff server are created from an invitation link. Ask an admin of your team to invite
            you, then open the link they send you.
          </p>
          {offer.emailDomains.length > 0 ? (
            <p>Or continue with an account whose verified address is at {offer.emailDomains.join(", ")}.</p>
          ) : providers.length > 0 ? (
            <p>Or continue with your company&apos;s single sign-on.</p>
          ) : null}
        </div>
        {providers.length > 0 ? (
          <div className="mt-6">
            <AuthForm
              mode="sign-up"
              next={next}
              providers={providers}
              passwordForm={false}
              providerError={providerError}
            />
          </div>
        ) : (
          <p className="mt-6 text-center text-sm text-muted">
            Already have an account?{" "}
            <Link className="underline" href={`/sign-in?next=${encodeURIComponent(next)}`}>
              Sign in
            </Link>
          </p>
        )}
      </>
    );
  }
  return (
    <>
      <h1 className="mb-6 text-2xl font-semibold">Create your account</h1>
      {offer.kind === "first-account" ? (
        <p className="mb-4 text-sm text-ink-soft">
          This is the first account on this server: it becomes the owner of the instance. Accounts after it join by
          invitation.
        </p>
      ) : null}
      <AuthForm
        mode="sign-up"
        next={next}
        providers={providers}
        invitation={offer.kind === "invited" ? { email: offer.email, token: offer.token } : null}
        providerError={providerError}
      />
    </>
  );
}
