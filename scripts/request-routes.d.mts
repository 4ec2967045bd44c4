import type { IncomingMessage, ServerResponse } from "node:http";

type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

export const IMAGE_API_KEY: string;
export function createRequestRouter(handleWithNext: Handler, published?: Record<symbol, unknown>): Handler;
