-- Written by hand: drizzle-kit does not model partitioned tables (the snapshot records the new primary
-- key only). The request log and the per-source daily statistics, whose rows grow with traffic, become
-- partitioned by UTC day, retired by dropping a day (db/day-partitions.ts). The release before reads and
-- writes the new tables as it did the old (same names, columns and unique keys; its retention deletes
-- by id and by day). request_variant_days follows in a later release: the release before deletes its
-- old rows by ctid, which on a partitioned table would match rows of every day. Each table as it was becomes
-- the first partition, up to the day after its newest row, whole: its indexes and foreign keys are
-- attached as they are, nothing is copied; only the log's primary key is built again, to hold the time.
-- An empty one (a new database) is dropped.
ALTER TABLE "request_log" RENAME TO "request_log_unpartitioned";--> statement-breakpoint
ALTER TABLE "request_log_unpartitioned" DROP CONSTRAINT "request_log_pkey";--> statement-breakpoint
ALTER TABLE "request_log_unpartitioned" ADD CONSTRAINT "request_log_unpartitioned_pk" PRIMARY KEY("id","created_at");--> statement-breakpoint
ALTER INDEX "request_log_project_created_id_idx" RENAME TO "request_log_unpartitioned_project_created_id_idx";--> statement-breakpoint
ALTER INDEX "request_log_project_status_created_id_idx" RENAME TO "request_log_unpartitioned_project_status_created_id_idx";--> statement-breakpoint
ALTER INDEX "request_log_project_source_created_id_idx" RENAME TO "request_log_unpartitioned_project_source_created_id_idx";--> statement-breakpoint
ALTER INDEX "request_log_request_id_idx" RENAME TO "request_log_unpartitioned_request_id_idx";--> statement-breakpoint
CREATE TABLE "request_log" (
	"id" bigint DEFAULT nextval('request_log_id_seq'::regclass) NOT NULL,
	"request_id" text NOT NULL,
	"project_id" uuid NOT NULL,
	"api_key_id" uuid,
	"status" text NOT NULL,
	"http_status" integer NOT NULL,
	"source_url" text,
	"source_hash" text,
	"operations" text,
	"output_format" text,
	"quality" integer,
	"score" real,
	"unreached" boolean,
	"source_bytes" integer,
	"output_bytes" integer,
	"processing_ms" integer,
	"cache" text,
	"weight" real DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "request_log_id_created_at_pk" PRIMARY KEY("id","created_at")
) PARTITION BY RANGE ("created_at");--> statement-breakpoint
ALTER SEQUENCE "request_log_id_seq" OWNED BY "request_log"."id";--> statement-breakpoint
ALTER TABLE "request_log" ADD CONSTRAINT "request_log_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "request_log" ADD CONSTRAINT "request_log_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "request_log_project_created_id_idx" ON "request_log" USING btree ("project_id","created_at","id");--> statement-breakpoint
CREATE INDEX "request_log_project_status_created_id_idx" ON "request_log" USING btree ("project_id","status","created_at","id");--> statement-breakpoint
CREATE INDEX "request_log_project_source_created_id_idx" ON "request_log" USING btree ("project_id","source_hash","created_at","id");--> statement-breakpoint
CREATE INDEX "request_log_request_id_idx" ON "request_log" USING btree ("request_id");--> statement-breakpoint
CREATE TABLE "request_log_default" PARTITION OF "request_log" DEFAULT;--> statement-breakpoint
ALTER TABLE "request_source_stats" RENAME TO "request_source_stats_unpartitioned";--> statement-breakpoint
ALTER TABLE "request_source_stats_unpartitioned" RENAME CONSTRAINT "request_source_stats_project_id_day_source_hash_pk" TO "request_source_stats_unpartitioned_pk";--> statement-breakpoint
CREATE TABLE "request_source_stats" (
	"day" date NOT NULL,
	"project_id" uuid NOT NULL,
	"source_hash" text NOT NULL,
	"source_url" text NOT NULL,
	"requests" bigint NOT NULL,
	"output_bytes" bigint NOT NULL,
	CONSTRAINT "request_source_stats_project_id_day_source_hash_pk" PRIMARY KEY("project_id","day","source_hash")
) PARTITION BY RANGE ("day");--> statement-breakpoint
ALTER TABLE "request_source_stats" ADD CONSTRAINT "request_source_stats_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE TABLE "request_source_stats_default" PARTITION OF "request_source_stats" DEFAULT;--> statement-breakpoint
DO $$
DECLARE
	t record;
	bound text;
BEGIN
	FOR t IN SELECT * FROM (VALUES
		('request_log', 'max(created_at AT TIME ZONE ''UTC'')'),
		('request_source_stats', 'max(day)')
	) AS v(parent, newest) LOOP
		EXECUTE format('SELECT to_char(%s + interval ''1 day'', ''YYYY-MM-DD'') FROM %I', t.newest, t.parent || '_unpartitioned') INTO bound;
		IF bound IS NULL THEN
			EXECUTE format('DROP TABLE %I', t.parent || '_unpartitioned');
		ELSE
			EXECUTE format('ALTER TABLE %I RENAME TO %I', t.parent || '_unpartitioned', t.parent || '_before_' || replace(bound, '-', ''));
			EXECUTE format(
				'ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (MINVALUE) TO (%L)',
				t.parent,
				t.parent || '_before_' || replace(bound, '-', ''),
				CASE WHEN t.parent = 'request_log' THEN bound || ' 00:00:00+00' ELSE bound END
			);
		END IF;
	END LOOP;
END $$;
