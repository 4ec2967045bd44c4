import { createMemoryKeyValue } from "@/server/coordination/memory-key-value";
import { createMemoryRateLimiter } from "@/server/coordination/memory-rate-limiter";
import { coordinationContract } from "../../contract/coordination";

coordinationContract("in-process", () => {
  let offset = 0;
  const now = () => Date.now() + offset;
  return {
    kv: createMemoryKeyValue(now),
    limiter: createMemoryRateLimiter(now),
    advance: async (ms) => {
      offset += ms;
    },
  };
});
