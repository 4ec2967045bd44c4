import { createExportHandler } from "@/server/http/export-route";
import { auditExport } from "@/server/http/exports";
import { getServices } from "@/server/services";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = createExportHandler(getServices, auditExport);
