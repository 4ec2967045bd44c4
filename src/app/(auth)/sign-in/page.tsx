import { AuthPage } from "../auth-page";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in · OptStuff" };

export default function Page({
  searchParams,
}: {
  searchParams: Promise<{ next?: string | string[]; error?: string | string[] }>;
}) {
  return <AuthPage mode="sign-in" searchParams={searchParams} />;
}
