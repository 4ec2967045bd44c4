import { redirect } from "next/navigation";
import { AuthForm } from "@/components/auth/auth-form";
import { getServices } from "@/server/services";
import { currentUser, safeNext } from "../../_lib/session";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in · OptStuff" };

export default async function Page({ searchParams }: { searchParams: Promise<{ next?: string | string[] }> }) {
  const next = safeNext((await searchParams).next);
  if (await currentUser()) redirect(next);
  return (
    <>
      <h1 className="mb-6 text-2xl font-semibold">Sign in</h1>
      <AuthForm mode="sign-in" next={next} providers={(await getServices()).authProviders} />
    </>
  );
}
