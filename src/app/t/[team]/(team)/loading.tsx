import { PageSkeleton } from "@/components/ui/page-skeleton";

/**
 * A team page (projects, usage, settings) while it loads: the team's header stays, the new section is
 * marked at once. In this route group only, beside the projects: a boundary at the team's level would
 * stream a project layout's 404 for an unknown project as a 200.
 */
export default function TeamPageLoading() {
  return <PageSkeleton />;
}
