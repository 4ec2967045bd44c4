// The three request kinds over any backend: refusals first, then script rewriting, then Redis.
import { EXECABORT, type RedisBackend } from "./backend";
import type { Outcome, RedisCommand } from "./protocol";
import type { ScriptTranslator } from "./script-rewrite";
import { refusal } from "./command-guard";

export interface CommandRunner {
  single(command: RedisCommand): Promise<Outcome>;
  /** Not atomic: each command runs on its own, in order, and fails on its own. */
  pipeline(commands: RedisCommand[]): Promise<Outcome[]>;
  transaction(commands: RedisCommand[]): Promise<Outcome[]>;
}

export function createCommandRunner(backend: RedisBackend, scripts: ScriptTranslator): CommandRunner {
  async function single(command: RedisCommand): Promise<Outcome> {
    const refused = refusal(command);
    if (refused) return { error: refused };
    const { command: translated, finish, preload } = scripts.translate(command);
    if (preload) await backend.send(preload);
    return finish(await backend.send(translated));
  }

  async function transaction(commands: RedisCommand[]): Promise<Outcome[]> {
    const refused = commands.map(refusal);
    // Redis would have refused to queue them: the whole transaction aborts, as with EXECABORT.
    if (refused.some((reason) => reason !== undefined)) {
      return refused.map((reason) => ({ error: reason ?? EXECABORT }));
    }
    const translations = commands.map((command) => scripts.translate(command));
    for (const { preload } of translations) if (preload) await backend.send(preload);
    const outcomes = await backend.transaction(translations.map((t) => t.command));
    return outcomes.map((outcome, index) => translations[index]!.finish(outcome));
  }

  // Every command is handed to ioredis in the same tick, so they go out back to back on the
  // connection (a real pipeline) and Redis runs them in the order the client sent them.
  const pipeline = (commands: RedisCommand[]) => Promise.all(commands.map(single));

  return { single, pipeline, transaction };
}
