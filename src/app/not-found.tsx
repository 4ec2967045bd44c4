import Link from "next/link";

export const metadata = { title: "Not found · OptStuff" };

/** An unknown path, or a team or project the signed-in user is not a member of: the two look alike. */
export default function NotFound() {
  return (
    <main id="main" tabIndex={-1} className="mx-auto max-w-md px-4 py-16 text-center">
      <h1 className="text-2xl font-semibold">Not found</h1>
      <p className="mt-2 text-sm text-muted">There is no such page, or it belongs to a team you are not a member of.</p>
      <Link href="/" className="mt-6 inline-block text-sm font-medium underline">
        Back to your teams
      </Link>
    </main>
  );
}
