import { group, integer, optionalInteger, text, textWithDefault, type ValuesOf } from "./setting";

/** Where this server listens, where it keeps its files, and the origin its visitors know it by. */
export const serverSettings = group("Server", {
  PORT: integer({
    default: 3000,
    min: 1,
    max: 65_535,
    doc: "The port `npm start` listens on, read from its environment (not from a `.env` file, which Next loads later).",
  }),
  HOST: textWithDefault({
    default: "127.0.0.1",
    doc: "The address `npm start` (scripts/server.mjs) listens on, read from its environment (not from a `.env` file): `0.0.0.0` to be reached from other machines. It names the server in the default public URL (a wildcard as `127.0.0.1`).",
  }),
  OPTSTUFF_PUBLIC_BASE_URL: text({
    defaultText: "`https://$VERCEL_PROJECT_PRODUCTION_URL` on Vercel, else `http://$HOST:$PORT`",
    doc: "The public origin: printed URLs and snippets, invitation links, the dashboard's sign-in origin check and cookies. The server writes it to `server.json` in `OPTSTUFF_DATA_DIR` when it starts; a command run without this, `HOST` or `PORT` in its environment prints that address.",
  }),
  OPTSTUFF_DATA_DIR: textWithDefault({
    default: ".data",
    doc: "Where the embedded database, the generated secrets and the result files live.",
  }),
  UV_THREADPOOL_SIZE: optionalInteger({
    min: 1,
    defaultText: "the transform slots + 4 under `npm start`",
    doc: "libuv's thread pool, read by Node itself; startup checks it against the transform slots.",
  }),
});

export type ServerValues = ValuesOf<typeof serverSettings>;
