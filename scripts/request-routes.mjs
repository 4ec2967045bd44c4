// How scripts/server.mjs routes a request. Plain JavaScript, like the server it is part of.
import compression from "compression";

/** Where the app publishes the image API's Node handler (src/server/http/published-image-api.ts). */
export const IMAGE_API_KEY = "optstuff.image-api";

const isImageApi = (req) => req.url?.startsWith("/api/v1/") === true;
/**
 * Paths Next's router answers with a redirect before any route (a trailing slash, `//`, a backslash)
 * stay with it, so that `npm start` answers them as `next start` and Vercel do.
 */
const redirectedByNext = (url) => {
  const path = url.split("?")[0];
  return path.endsWith("/") || path.includes("//") || path.includes("\\");
};

/**
 * The image API goes straight to the handler the app published once it started, past Next's router:
 * matching, the rewrite to /api/image-delivery and the API-route wrapper cost about 6.5 ms of CPU an
 * image (--cpu-prof over bench:image), and the handler reads only the raw path, query and headers, all
 * of which it gets here unchanged. Until the app has published it (it does so before Next answers its
 * first request), and on Vercel, where this server does not run, Next's router takes the same path.
 *
 * Everything else goes to Next with what its own `compress` did (turned off in next.config.mjs). The
 * image API's answers are framed exactly as the contract says (fixed length, no Accept-Encoding
 * variant), so it never goes through compression.
 */
export function createRequestRouter(handleWithNext, published = globalThis) {
  const compress = compression();
  return (req, res) => {
    if (!isImageApi(req)) return compress(req, res, () => handleWithNext(req, res));
    if (redirectedByNext(req.url)) return handleWithNext(req, res);
    const imageApi = published[Symbol.for(IMAGE_API_KEY)];
    return typeof imageApi === "function" ? imageApi(req, res) : handleWithNext(req, res);
  };
}
