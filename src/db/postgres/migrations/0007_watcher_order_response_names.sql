-- People on a ticket keep the order they were added in (decision 048). Existing rows (PostgreSQL
-- kept no order of writing): the ticket's requester_id first, then as they were listed before.
ALTER TABLE "ticket_watchers" ADD COLUMN "position" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE "ticket_watchers" AS "w" SET "position" = "o"."n" FROM (
  SELECT "tw"."ticket_id", "tw"."role", "tw"."user_id", row_number() OVER (PARTITION BY "tw"."ticket_id"
    ORDER BY ("tw"."role" = 'requester' AND "tw"."user_id" = "t"."requester_id") DESC, "tw"."created_at", "tw"."user_id") AS "n"
  FROM "ticket_watchers" AS "tw" JOIN "tickets" AS "t" ON "t"."id" = "tw"."ticket_id"
) AS "o"
WHERE "w"."ticket_id" = "o"."ticket_id" AND "w"."role" = "o"."role" AND "w"."user_id" = "o"."user_id";--> statement-breakpoint
-- Canned response names are unique per owner, and among the shared ones, ignoring case: an index
-- now, not a check before the insert. Names that already repeat: the oldest keeps its name, each
-- later one gets its id appended ("Thanks (7)"), which its owner can rename.
UPDATE "canned_responses" SET "name" = "name" || ' (' || "id" || ')'
WHERE EXISTS (SELECT 1 FROM "canned_responses" AS "o" WHERE lower("o"."name" COLLATE "C") = lower("canned_responses"."name" COLLATE "C")
  AND "o"."owner_id" IS NOT DISTINCT FROM "canned_responses"."owner_id" AND "o"."id" < "canned_responses"."id");--> statement-breakpoint
CREATE UNIQUE INDEX "canned_responses_own_name_uq" ON "canned_responses" USING btree ("owner_id",lower("name" COLLATE "C")) WHERE owner_id IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "canned_responses_shared_name_uq" ON "canned_responses" USING btree (lower("name" COLLATE "C")) WHERE owner_id IS NULL;
