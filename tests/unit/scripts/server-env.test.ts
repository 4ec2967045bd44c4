import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { serverEnv } from "../../../scripts/server-env.mjs";

describe("the server's process environment (npm start)", () => {
  it("caps malloc arenas and gives the thread pool four threads beyond the transform slots", () => {
    const env = serverEnv({ PATH: "/bin" });
    expect(env.MALLOC_ARENA_MAX).toBe("2");
    expect(env.UV_THREADPOOL_SIZE).toBe(String(2 * availableParallelism() + 4));
    expect(env.PATH).toBe("/bin");
    expect(serverEnv({ OPTSTUFF_TRANSFORM_CONCURRENCY: "10" }).UV_THREADPOOL_SIZE).toBe("14");
  });

  it("leaves values already set alone", () => {
    const env = serverEnv({ MALLOC_ARENA_MAX: "8", UV_THREADPOOL_SIZE: "64" });
    expect([env.MALLOC_ARENA_MAX, env.UV_THREADPOOL_SIZE]).toEqual(["8", "64"]);
  });
});
