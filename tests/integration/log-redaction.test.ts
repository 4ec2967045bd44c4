import { randomBytes } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { account, apiKeys, session } from "@/server/db/schema";
import { toAppError } from "@/server/errors";
import { createLogger, describeError } from "@/server/log";
import { createTestApp, type TestApp } from "../support/app";
import { signUp } from "../support/dashboard";

/**
 * Drizzle puts a failed query's parameters into its error message ("Failed query: …\nparams: …"), and
 * PostgreSQL echoes a value it cannot cast. Real failing queries whose parameters are a sealed API-key
 * secret, a session token and a password hash go through every way the app logs an error: none of
 * the three may reach a log line.
 */
const lines: string[] = [];
let app: TestApp;
let secrets: { sealed: string; token: string; hash: string };
let failures: unknown[];

async function failure(query: PromiseLike<unknown>): Promise<unknown> {
  try {
    await query;
  } catch (error) {
    return error;
  }
  throw new Error("the query was expected to fail");
}

beforeAll(async () => {
  app = await createTestApp({ seams: { logger: createLogger("debug", (line) => lines.push(line)) } });
  const db = app.services.database.db;
  const someone = await signUp(app.services, "logged");
  const [key] = await db.select({ sealed: apiKeys.encryptedSecret }).from(apiKeys).where(eq(apiKeys.id, app.key.id));
  const [row] = await db.select({ token: session.token }).from(session).where(eq(session.userId, someone.id));
  const [credential] = await db.select({ hash: account.password }).from(account).where(eq(account.userId, someone.id));
  secrets = { sealed: key!.sealed, token: row!.token, hash: credential!.hash! };
  failures = [
    // Unique violation: the parameters hold the sealed secret.
    await failure(
      db.insert(apiKeys).values({
        projectId: app.projectId,
        name: "copy",
        publicKey: app.key.publicKey,
        encryptedSecret: secrets.sealed,
      }),
    ),
    // Unique violation: the parameters hold the session token.
    await failure(
      db.insert(session).values({
        id: randomBytes(8).toString("hex"),
        token: secrets.token,
        userId: someone.id,
        expiresAt: new Date(),
      }),
    ),
    // Foreign-key violation: the parameters hold the password hash.
    await failure(
      db.insert(account).values({
        id: randomBytes(8).toString("hex"),
        accountId: "x",
        providerId: "credential",
        userId: "nobody",
        password: secrets.hash,
      }),
    ),
    // A value PostgreSQL cannot cast is quoted in its own message.
    await failure(db.select().from(apiKeys).where(eq(apiKeys.id, secrets.sealed))),
    await failure(db.execute(sql`select ${secrets.token}::integer`)),
  ];
}, 30_000);
afterAll(() => app.close());

describe("log redaction", () => {
  it("the failing queries do carry the secrets (the premise)", () => {
    const everything = failures
      .map((f) => `${String(f)} ${JSON.stringify(f)} ${String((f as Error).cause)}`)
      .join("\n");
    expect(everything).toContain(secrets.sealed);
    expect(everything).toContain(secrets.token);
    expect(everything).toContain(secrets.hash);
  });

  it("writes no sealed secret, session token or password hash from a failed query, whichever way it is logged", async () => {
    const logger = app.services.logger;
    for (const error of failures) {
      logger.log("error", "described", describeError(error));
      logger.log("error", "as a procedure failure", { path: "x", ...describeError(toAppError(error)) });
      logger.log("error", "raw", { error, nested: { list: [error] } });
      logger.log("error", `interpolated: ${(error as Error).message}`);
    }
    // better-auth's own logger (its "Failed to create user" passes the driver's error object) goes through ours.
    const context = await (await app.services.dashboard.auth()).$context;
    for (const error of failures) context.logger.error("Failed to create user", error);

    const written = lines.join("\n");
    expect(lines.length).toBeGreaterThanOrEqual(failures.length * 5);
    expect(written).toContain("better-auth: Failed to create user");
    for (const secret of Object.values(secrets)) expect(written).not.toContain(secret);
    // Still useful to whoever reads the log: what failed, and why.
    expect(written).toContain('Failed query: insert into \\"api_keys\\"');
    expect(written).toMatch(/duplicate key value violates unique constraint/);
    expect(written).toMatch(/invalid input syntax for type uuid/);
  });

  it("redacts a secret that reaches a message or field by any other way", () => {
    const seen: string[] = [];
    const logger = createLogger("debug", (line) => seen.push(line));
    const secretKey = `sk_${randomBytes(32).toString("base64url")}`;
    logger.log("warn", `key ${secretKey} sealed ${secrets.sealed}`, {
      token: secrets.token,
      hash: secrets.hash,
      requestId: "0b9f8e2c-6d1a-4f7e-9c3b-2a5d8e7f1c40",
      publicKey: app.key.publicKey,
    });
    const line = seen.join("\n");
    for (const secret of [secretKey, secrets.sealed, secrets.token, secrets.hash]) expect(line).not.toContain(secret);
    // Identifiers that are not secrets stay readable.
    expect(line).toContain("0b9f8e2c-6d1a-4f7e-9c3b-2a5d8e7f1c40");
    expect(line).toContain(app.key.publicKey);
  });

  it("redacts base64url tokens, whose - and _ would break a letters-and-digits run", () => {
    const seen: string[] = [];
    const logger = createLogger("debug", (line) => seen.push(line));
    // Enough random 32-byte tokens that nearly every one holds a - or _ somewhere.
    const tokens = Array.from({ length: 200 }, () => randomBytes(32).toString("base64url"));
    for (const token of tokens) logger.log("warn", `invitation ${token} failed`);
    const lines = seen.join("\n");
    for (const token of tokens) expect(lines).not.toContain(token);
  });
});

describe("stacks", () => {
  it("describes an error with its stack frames, redacted, and without repeating a message that may hold parameters", () => {
    for (const error of failures) {
      const described = describeError(error);
      const stack = String(described.stack ?? (described.cause as { stack?: string } | undefined)?.stack);
      expect(stack).toMatch(/^\s*at /m);
      for (const secret of Object.values(secrets)) expect(stack).not.toContain(secret);
      expect(stack).not.toContain("params:");
    }
    const forged = new Error("x");
    forged.stack = `Error: x\n    at handler (/srv/app/${secrets.token}.js:1:1)`;
    expect(describeError(forged).stack).toBe("at handler (/srv/app/[redacted].js:1:1)");
  });

  it("keeps the stack of the cause an internal error wraps", () => {
    const described = describeError(toAppError(new RangeError("out of range")));
    expect((described.cause as { stack?: string }).stack).toContain("log-redaction.test.ts");
  });
});
