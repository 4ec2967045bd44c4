CREATE TABLE "cron_run" (
	"job" text PRIMARY KEY NOT NULL,
	"last_started_at" timestamp with time zone,
	"last_finished_at" timestamp with time zone,
	"last_success_at" timestamp with time zone,
	"last_report" jsonb,
	"last_error" text
);
--> statement-breakpoint
CREATE TABLE "invalidation_retry" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"keys" text[] NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- No release wrote to the ledger before claims existed; "legacy" only satisfies NOT NULL for old rows.
ALTER TABLE "usage_flush_ledger" ADD COLUMN "claim" text DEFAULT 'legacy' NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_flush_ledger" ALTER COLUMN "claim" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "usage_flush_ledger" DROP CONSTRAINT "usage_flush_ledger_pkey";--> statement-breakpoint
ALTER TABLE "usage_flush_ledger" ADD CONSTRAINT "usage_flush_ledger_bucket_claim_pk" PRIMARY KEY("bucket","claim");--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "expired_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "request_log" ADD COLUMN "cache" text;--> statement-breakpoint
ALTER TABLE "usage_flush_ledger" ADD COLUMN "dropped_requests" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "request_log_created_idx" ON "request_log" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "usage_flush_ledger_flushed_idx" ON "usage_flush_ledger" USING btree ("flushed_at");