import { createMemoryKeyValue } from "@/server/coordination/memory-key-value";
import { isAddressSubject } from "@/server/coordination/keys";
import { createMemoryRateLimiter } from "@/server/coordination/memory-rate-limiter";
import { coordinationContract } from "../../contract/coordination";

coordinationContract("in-process", () => {
  let offset = 0;
  const now = () => Date.now() + offset;
  return {
    kv: createMemoryKeyValue(now),
    limiter: createMemoryRateLimiter({ now, isAddress: isAddressSubject }),
    advance: async (ms) => {
      offset += ms;
    },
  };
});
