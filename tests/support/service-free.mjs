// Integration files that run the same whatever services the machine has: they open no database but
// the embedded one they make, reach no Redis or S3, and read none of the variables that tell the test
// passes apart (tests/unit/scripts/service-free.test.ts follows their imports to check it). CI's pass on
// PostgreSQL, Redis and S3 leaves them out (`npm test -- --skip-service-free`): the fresh-machine pass
// has run them already, and running them again cost about 136 s on this machine and told nothing new.
export const SERVICE_FREE = [
  "tests/integration/embedded-cluster-template.test.ts",
  "tests/integration/embedded-database-process.test.ts",
  "tests/integration/embedded-database.test.ts",
  "tests/integration/embedded-lock.test.ts",
  "tests/integration/image/auto-quality.test.ts",
  "tests/integration/image/best-format.test.ts",
  "tests/integration/image/colour.test.ts",
  "tests/integration/image/hostile.test.ts",
  "tests/integration/image/metadata.test.ts",
  "tests/integration/image/pipeline.test.ts",
  "tests/integration/image/quality-regret.test.ts",
  "tests/integration/image/thread-nice.test.ts",
  "tests/integration/image/watermark.test.ts",
  "tests/integration/source/fetch-limits.test.ts",
  "tests/integration/source/ssrf.test.ts",
  "tests/integration/telemetry/protobuf-export.test.ts",
];
