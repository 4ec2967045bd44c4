import { createAuditExportHandler } from "@/server/http/export-route";
import { getServices } from "@/server/services";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = createAuditExportHandler(getServices);
