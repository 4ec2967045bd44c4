// A throwaway S3-compatible server (s3rver) on loopback until Ctrl-C or SIGTERM, for local work and
// CI's PostgreSQL + Redis + object store run. Prints the endpoint the tests read.
import { S3RVER_CREDENTIALS, startS3rver } from "./s3rver-process";

const server = await startS3rver(Number(process.env.S3_LOCAL_PORT ?? 0));
console.error(`s3rver pid ${server.pid}; access key ${S3RVER_CREDENTIALS.accessKeyId}. Ctrl-C stops it.`);
console.log(`TEST_S3_ENDPOINT=${server.endpoint}`);

let stopping = false;
async function shutdown() {
  if (stopping) return;
  stopping = true;
  await server.stop();
  process.exit(0);
}
process.on("SIGINT", () => void shutdown());
process.on("SIGTERM", () => void shutdown());
