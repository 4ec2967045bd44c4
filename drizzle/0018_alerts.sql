CREATE TABLE "alert_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "alert_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"team_id" uuid NOT NULL,
	"project_id" uuid,
	"kind" text NOT NULL,
	"subject_id" text NOT NULL,
	"window" text NOT NULL,
	"message" text NOT NULL,
	"first_seen_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	"resolved_at" timestamp with time zone,
	"mailed_at" timestamp with time zone,
	"mail_error" text
);
--> statement-breakpoint
CREATE TABLE "request_minute_stats" (
	"project_id" uuid NOT NULL,
	"minute" timestamp with time zone NOT NULL,
	"requests" bigint NOT NULL,
	"failed" bigint NOT NULL,
	CONSTRAINT "request_minute_stats_project_id_minute_pk" PRIMARY KEY("project_id","minute")
);
--> statement-breakpoint
CREATE TABLE "team_alert_settings" (
	"team_id" uuid PRIMARY KEY NOT NULL,
	"key_day_limit_percent" integer,
	"error_rate_percent" integer,
	"key_expiry" boolean NOT NULL,
	"bucket_credentials" boolean NOT NULL,
	"mail_admins" boolean NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "source_buckets" ADD COLUMN "credentials_checked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "source_buckets" ADD COLUMN "credentials_failure" text;--> statement-breakpoint
ALTER TABLE "alert_events" ADD CONSTRAINT "alert_events_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_events" ADD CONSTRAINT "alert_events_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "request_minute_stats" ADD CONSTRAINT "request_minute_stats_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_alert_settings" ADD CONSTRAINT "team_alert_settings_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "alert_events_once" ON "alert_events" USING btree ("team_id","kind","subject_id","window");--> statement-breakpoint
CREATE INDEX "alert_events_team_seen_idx" ON "alert_events" USING btree ("team_id","last_seen_at");--> statement-breakpoint
CREATE INDEX "alert_events_open_idx" ON "alert_events" USING btree ("last_seen_at") WHERE "alert_events"."resolved_at" is null;--> statement-breakpoint
CREATE INDEX "request_minute_stats_minute_idx" ON "request_minute_stats" USING btree ("minute");