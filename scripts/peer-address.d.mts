import type { IncomingMessage, Server, ServerResponse } from "node:http";

export const PEER_ADDRESS_HEADER: string;
export function createPeerAddressServer(handle: (req: IncomingMessage, res: ServerResponse) => unknown): Server;
