// Latency and outage switches, so tests can show how callers behave when Redis is slow or gone.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/** `"refuse"` hangs up on every connection at once; `"hang"` accepts requests and never answers. */
export type DownMode = "refuse" | "hang";

export function createOutageSwitch() {
  let delayMs = 0;
  let down: DownMode | false = false;
  const held = new Set<ServerResponse>();

  function releaseHeld() {
    // Held requests end as a dropped connection: answering them late would replay writes the
    // client has already given up on.
    for (const response of held) response.socket?.destroy();
    held.clear();
  }

  return {
    /** Extra time before each request is handled; 0 turns it off. */
    setDelay(ms: number) {
      delayMs = Math.max(0, ms);
    },
    /** `true` means `"refuse"`; `false` brings the endpoint back and drops any held request. */
    setDown(mode: boolean | DownMode) {
      down = mode === true ? "refuse" : mode;
      if (down !== "hang") releaseHeld();
    },
    /** New connections while refusing are closed before a request can be read. */
    onConnection(socket: Socket) {
      if (down === "refuse") socket.destroy();
    },
    /** True when the request was swallowed by the outage and must not be handled. */
    intercept(request: IncomingMessage, response: ServerResponse): boolean {
      if (down === "refuse") {
        request.socket.destroy();
        return true;
      }
      if (down === "hang") {
        held.add(response);
        response.on("close", () => held.delete(response));
        return true;
      }
      return false;
    },
    delay: () => (delayMs > 0 ? new Promise<void>((resolve) => setTimeout(resolve, delayMs)) : Promise.resolve()),
    close: releaseHeld,
  };
}

export type OutageSwitch = ReturnType<typeof createOutageSwitch>;
