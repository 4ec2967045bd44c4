import { checkHealth } from "@/server/health";
import { getServices } from "@/server/services";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** `?probe=live` answers without touching dependencies; the default also checks readiness. */
export async function GET(request: Request): Promise<Response> {
  const liveOnly = new URL(request.url).searchParams.get("probe") === "live";
  const report = liveOnly ? { status: "ok" as const } : await checkHealth(getServices);
  return Response.json(report, {
    status: report.status === "ok" ? 200 : 503,
    headers: { "Cache-Control": "no-store" },
  });
}
