CREATE TABLE "audit_streams" (
	"team_id" uuid PRIMARY KEY NOT NULL,
	"destination" text NOT NULL,
	"webhook_id" uuid,
	"cursor" bigint NOT NULL,
	"generation" integer DEFAULT 0 NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"leased_until" timestamp with time zone,
	"last_sent_at" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "audit_streams" ADD CONSTRAINT "audit_streams_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audit_streams" ADD CONSTRAINT "audit_streams_webhook_id_team_webhooks_id_fk" FOREIGN KEY ("webhook_id") REFERENCES "public"."team_webhooks"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_streams_due_idx" ON "audit_streams" USING btree ("next_attempt_at");--> statement-breakpoint
CREATE INDEX "audit_log_team_id_idx" ON "audit_log" USING btree ("team_id","id");