import { redirect } from "next/navigation";
import { AuthForm } from "@/components/auth/auth-form";
import { getServices } from "@/server/services";
import { currentUser, safeNext } from "../../_lib/session";

export const dynamic = "force-dynamic";
export const metadata = { title: "Create your account · OptStuff" };

export default async function Page({ searchParams }: { searchParams: Promise<{ next?: string | string[] }> }) {
  const next = safeNext((await searchParams).next);
  if (await currentUser()) redirect(next);
  return (
    <>
      <h1 className="mb-6 text-2xl font-semibold">Create your account</h1>
      <AuthForm mode="sign-up" next={next} providers={(await getServices()).authProviders} />
    </>
  );
}
