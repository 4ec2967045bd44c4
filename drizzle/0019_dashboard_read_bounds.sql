ALTER TABLE "request_log" ADD COLUMN "source_hash" text;--> statement-breakpoint
-- Rows logged before: the hash of the whole name, then the name clipped as usage/logged-source.ts clips it
-- (before the index exists, so each row is written once).
UPDATE "request_log" SET "source_hash" = left(encode(sha256(convert_to("source_url", 'UTF8')), 'hex'), 32), "source_url" = CASE WHEN length("source_url") > 256 THEN left("source_url", 255) || '…' ELSE "source_url" END WHERE "source_url" IS NOT NULL;--> statement-breakpoint
UPDATE "request_source_stats" SET "source_url" = left("source_url", 255) || '…' WHERE length("source_url") > 256;--> statement-breakpoint
CREATE INDEX "request_log_project_source_created_id_idx" ON "request_log" USING btree ("project_id","source_hash","created_at","id");--> statement-breakpoint
CREATE INDEX "audit_log_team_created_id_idx" ON "audit_log" USING btree ("team_id","created_at","id");--> statement-breakpoint
DROP INDEX "audit_log_team_id_idx";
