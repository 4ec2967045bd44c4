CREATE TABLE "usage_buffer" (
	"bucket" text NOT NULL,
	"project_id" uuid NOT NULL,
	"api_key_id" uuid NOT NULL,
	"requests" bigint NOT NULL,
	"bytes" bigint NOT NULL,
	CONSTRAINT "usage_buffer_bucket_project_id_api_key_id_pk" PRIMARY KEY("bucket","project_id","api_key_id")
);
