-- People on a ticket keep the order they were added in (decision 048). Existing rows: the order
-- they were written in (rowid), with the ticket's requester_id first.
ALTER TABLE `ticket_watchers` ADD `position` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `ticket_watchers` SET `position` = rowid;--> statement-breakpoint
UPDATE `ticket_watchers` SET `position` = 0
WHERE `role` = 'requester' AND `user_id` = (SELECT `requester_id` FROM `tickets` WHERE `tickets`.`id` = `ticket_watchers`.`ticket_id`);--> statement-breakpoint
-- Canned response names are unique per owner, and among the shared ones, ignoring case: an index
-- now, not a check before the insert. Names that already repeat: the oldest keeps its name, each
-- later one gets its id appended ("Thanks (7)"), which its owner can rename.
UPDATE `canned_responses` SET `name` = `name` || ' (' || `id` || ')'
WHERE EXISTS (SELECT 1 FROM `canned_responses` AS `o` WHERE `o`.`name` = `canned_responses`.`name` COLLATE NOCASE
  AND `o`.`owner_id` IS `canned_responses`.`owner_id` AND `o`.`id` < `canned_responses`.`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `canned_responses_own_name_uq` ON `canned_responses` (`owner_id`,"name" COLLATE NOCASE) WHERE owner_id IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `canned_responses_shared_name_uq` ON `canned_responses` ("name" COLLATE NOCASE) WHERE owner_id IS NULL;
