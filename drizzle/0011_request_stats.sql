CREATE TABLE "request_source_stats" (
	"day" date NOT NULL,
	"project_id" uuid NOT NULL,
	"source_hash" text NOT NULL,
	"source_url" text NOT NULL,
	"requests" bigint NOT NULL,
	"output_bytes" bigint NOT NULL,
	CONSTRAINT "request_source_stats_project_id_day_source_hash_pk" PRIMARY KEY("project_id","day","source_hash")
);
--> statement-breakpoint
CREATE TABLE "request_stats" (
	"hour" timestamp with time zone NOT NULL,
	"project_id" uuid NOT NULL,
	"status" text NOT NULL,
	"cache" text NOT NULL,
	"requests" bigint NOT NULL,
	"processing_ms" bigint NOT NULL,
	"measured_requests" bigint NOT NULL,
	"source_bytes" bigint NOT NULL,
	"output_bytes" bigint NOT NULL,
	"le_10" bigint NOT NULL,
	"le_25" bigint NOT NULL,
	"le_50" bigint NOT NULL,
	"le_100" bigint NOT NULL,
	"le_250" bigint NOT NULL,
	"le_500" bigint NOT NULL,
	"le_1000" bigint NOT NULL,
	"le_2500" bigint NOT NULL,
	"le_5000" bigint NOT NULL,
	"over" bigint NOT NULL,
	CONSTRAINT "request_stats_project_id_hour_status_cache_pk" PRIMARY KEY("project_id","hour","status","cache")
);
--> statement-breakpoint
DROP INDEX "request_log_project_created_idx";--> statement-breakpoint
ALTER TABLE "request_source_stats" ADD CONSTRAINT "request_source_stats_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "request_stats" ADD CONSTRAINT "request_stats_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "request_log_project_created_id_idx" ON "request_log" USING btree ("project_id","created_at","id");--> statement-breakpoint
CREATE INDEX "request_log_project_status_created_id_idx" ON "request_log" USING btree ("project_id","status","created_at","id");