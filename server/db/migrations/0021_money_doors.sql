-- Issue 25: money doors (contract/doors.ts). What one user decided alone (`decisions_alone`), the day's
-- sums read from it; approvers barred besides the requester (a statement's importer); statements with
-- their provenance; a `ready` line state (a person's statement posts only by a money decision); a debit's
-- proposed slip line; the account a withdrawal slip is paid from.
CREATE TABLE "decisions_alone" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"door" text NOT NULL,
	"user_id" integer NOT NULL,
	"wallet" text NOT NULL,
	"evidence" text,
	"amount" bigint NOT NULL,
	"ref" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	CONSTRAINT "decisions_alone_amount" CHECK ("decisions_alone"."amount" > 0)
);
--> statement-breakpoint
ALTER TABLE "statement_lines" DROP CONSTRAINT "statement_lines_status";--> statement-breakpoint
DROP INDEX "statement_lines_open_idx";--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "barred" integer[] DEFAULT '{}'::integer[] NOT NULL;--> statement-breakpoint
-- Imports before provenance was recorded: a pasted text was written as format `text`, the rest were uploads.
ALTER TABLE "statement_imports" ADD COLUMN "source" text;--> statement-breakpoint
UPDATE "statement_imports" SET "source" = CASE WHEN "format" = 'text' THEN 'paste' ELSE 'upload' END;--> statement-breakpoint
ALTER TABLE "statement_imports" ALTER COLUMN "source" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "statement_imports" ADD COLUMN "ready_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "statement_lines" ADD COLUMN "candidate_slip_line_id" integer;--> statement-breakpoint
ALTER TABLE "statement_lines" ADD COLUMN "approval_id" integer;--> statement-breakpoint
ALTER TABLE "withdrawal_slips" ADD COLUMN "account_id" integer;--> statement-breakpoint
CREATE INDEX "decisions_alone_user_idx" ON "decisions_alone" USING btree ("user_id","at");--> statement-breakpoint
CREATE INDEX "decisions_alone_wallet_idx" ON "decisions_alone" USING btree ("wallet","at");--> statement-breakpoint
CREATE INDEX "decisions_alone_evidence_idx" ON "decisions_alone" USING btree ("evidence") WHERE "decisions_alone"."evidence" is not null;--> statement-breakpoint
ALTER TABLE "statement_lines" ADD CONSTRAINT "statement_lines_candidate_slip_line_id_withdrawal_slip_lines_id_fk" FOREIGN KEY ("candidate_slip_line_id") REFERENCES "public"."withdrawal_slip_lines"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "withdrawal_slips" ADD CONSTRAINT "withdrawal_slips_account_id_receiving_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."receiving_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "statement_lines_open_idx" ON "statement_lines" USING btree ("created_at","id") WHERE "statement_lines"."status" in ('ready','proposed','exception');--> statement-breakpoint
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_barred" CHECK ("approvals"."decided_by" is null or not ("approvals"."decided_by" = any("approvals"."barred")));--> statement-breakpoint
ALTER TABLE "statement_imports" ADD CONSTRAINT "statement_imports_source" CHECK ("statement_imports"."source" in ('upload','paste','feed'));--> statement-breakpoint
ALTER TABLE "statement_lines" ADD CONSTRAINT "statement_lines_status" CHECK ("statement_lines"."status" in ('new','ready','proposed','exception','matched','dismissed'));