/** A private bucket's settings as the dashboard sends them; the endpoint is never dialled by the tests that use it. */
export const EXAMPLE_BUCKET = {
  alias: "media",
  endpoint: "https://s3.example.com",
  region: "us-east-1",
  bucket: "media",
  prefix: "",
  forcePathStyle: true,
  accessKeyId: "AKIAEXAMPLE",
  secretAccessKey: "bucket-secret-value",
};
