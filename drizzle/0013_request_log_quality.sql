ALTER TABLE "request_log" ADD COLUMN "quality" integer;--> statement-breakpoint
ALTER TABLE "request_log" ADD COLUMN "score" real;