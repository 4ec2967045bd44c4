import { after } from "next/server";
import { createImageRouteHandler } from "@/server/delivery/route-handler";
import { getServices } from "@/server/services";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const handle = createImageRouteHandler(getServices, after);

export const GET = handle;
export const HEAD = handle;
