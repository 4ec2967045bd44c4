import { ApiKeys } from "@/components/keys/api-keys";

export const metadata = { title: "API keys · OptStuff" };

export default async function KeysPage({ params }: { params: Promise<{ team: string; project: string }> }) {
  const { team, project } = await params;
  return <ApiKeys teamSlug={team} projectSlug={project} />;
}
