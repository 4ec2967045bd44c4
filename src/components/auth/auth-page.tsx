import { redirect } from "next/navigation";
import { currentUser, safeNext } from "@/app/_lib/session";
import { getServices } from "@/server/services";
import { AuthForm } from "./auth-form";

/** Sign-in and sign-up pages: a signed-in visitor goes on to `next`; the providers come from config. */
export async function AuthPage({ mode, searchParams }: { mode: "sign-in" | "sign-up"; searchParams: Promise<{ next?: string | string[] }> }) {
  const next = safeNext((await searchParams).next);
  if (await currentUser()) redirect(next);
  return (
    <>
      <h1 className="mb-6 text-2xl font-semibold">{mode === "sign-in" ? "Sign in" : "Create your account"}</h1>
      <AuthForm mode={mode} next={next} providers={(await getServices()).authProviders} />
    </>
  );
}
