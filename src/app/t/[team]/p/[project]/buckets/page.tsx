import { ProjectBuckets } from "@/components/projects/project-buckets";

export const metadata = { title: "Buckets · OptStuff" };

export default async function ProjectBucketsPage({ params }: { params: Promise<{ team: string; project: string }> }) {
  const { team, project } = await params;
  return <ProjectBuckets teamSlug={team} projectSlug={project} />;
}
