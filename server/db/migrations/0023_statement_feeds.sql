-- Issue 26: statements that arrive by themselves. A receiving account's bank feed (an SFTP folder the
-- `statement-feed` job polls; private key sealed, host key pinned) and the files it saw, each imported once
-- by content (unique sha256 per feed).
CREATE TABLE "statement_feed_files" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"feed_id" integer NOT NULL,
	"remote_name" text NOT NULL,
	"size" bigint NOT NULL,
	"mtime" timestamp with time zone NOT NULL,
	"sha256" text,
	"import_id" integer,
	"error" text,
	"first_seen_at" timestamp with time zone NOT NULL,
	"imported_at" timestamp with time zone,
	CONSTRAINT "statement_feed_files_content_key" UNIQUE("feed_id","sha256")
);
--> statement-breakpoint
CREATE TABLE "statement_feeds" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"host" text NOT NULL,
	"port" integer DEFAULT 22 NOT NULL,
	"username" text NOT NULL,
	"private_key_sealed" text NOT NULL,
	"host_key_fingerprint" text NOT NULL,
	"folder" text NOT NULL,
	"pattern" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"import_as" integer NOT NULL,
	"sightings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"last_polled_at" timestamp with time zone,
	"last_error" text,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"last_alert_at" timestamp with time zone,
	"lease_until" timestamp with time zone,
	"lease_owner" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "statement_feeds_account_key" UNIQUE("account_id"),
	CONSTRAINT "statement_feeds_port" CHECK ("statement_feeds"."port" between 1 and 65535)
);
--> statement-breakpoint
ALTER TABLE "statement_feed_files" ADD CONSTRAINT "statement_feed_files_feed_id_statement_feeds_id_fk" FOREIGN KEY ("feed_id") REFERENCES "public"."statement_feeds"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "statement_feed_files" ADD CONSTRAINT "statement_feed_files_import_id_statement_imports_id_fk" FOREIGN KEY ("import_id") REFERENCES "public"."statement_imports"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "statement_feeds" ADD CONSTRAINT "statement_feeds_account_id_receiving_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."receiving_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "statement_feed_files_feed_idx" ON "statement_feed_files" USING btree ("feed_id","id" DESC NULLS LAST);