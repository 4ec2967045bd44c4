CREATE TABLE "request_quality_stats" (
	"day" date NOT NULL,
	"project_id" uuid NOT NULL,
	"mode" text NOT NULL,
	"format" text NOT NULL,
	"requests" bigint NOT NULL,
	"output_bytes" bigint NOT NULL,
	"measured_requests" bigint NOT NULL,
	"measured_source_bytes" bigint NOT NULL,
	"measured_output_bytes" bigint NOT NULL,
	"scored_requests" bigint NOT NULL,
	"score_sum" double precision NOT NULL,
	"score_min" double precision,
	CONSTRAINT "request_quality_stats_project_id_day_mode_format_pk" PRIMARY KEY("project_id","day","mode","format")
);
--> statement-breakpoint
ALTER TABLE "request_quality_stats" ADD CONSTRAINT "request_quality_stats_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;