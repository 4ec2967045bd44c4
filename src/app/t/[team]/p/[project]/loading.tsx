import { PageSkeleton } from "@/components/ui/page-skeleton";

/**
 * A project tab's page while it loads: the project's header and tabs stay (its layout), the new tab is
 * marked at once. Only here, under the project's layout: a boundary above it would stream the layout's
 * 404 for an unknown project as a 200.
 */
export default function ProjectPageLoading() {
  return <PageSkeleton />;
}
