-- Queue, team and template names are unique regardless of case (decision 018). The old indexes
-- compared exactly, so "Support" and "support" may both exist: the oldest keeps its name and
-- each later one gets its id appended ("support (7)"), which an admin can rename afterwards.
UPDATE `queues` SET `name` = `name` || ' (' || `id` || ')'
WHERE EXISTS (SELECT 1 FROM `queues` AS `o` WHERE `o`.`name` = `queues`.`name` COLLATE NOCASE AND `o`.`id` < `queues`.`id`);--> statement-breakpoint
UPDATE `teams` SET `name` = `name` || ' (' || `id` || ')'
WHERE EXISTS (SELECT 1 FROM `teams` AS `o` WHERE `o`.`name` = `teams`.`name` COLLATE NOCASE AND `o`.`id` < `teams`.`id`);--> statement-breakpoint
UPDATE `templates` SET `name` = `name` || ' (' || `id` || ')'
WHERE EXISTS (SELECT 1 FROM `templates` AS `o` WHERE `o`.`name` = `templates`.`name` COLLATE NOCASE AND `o`.`id` < `templates`.`id`);--> statement-breakpoint
DROP INDEX `queues_name_uq`;--> statement-breakpoint
CREATE UNIQUE INDEX `queues_name_uq` ON `queues` ("name" COLLATE NOCASE);--> statement-breakpoint
DROP INDEX `teams_name_uq`;--> statement-breakpoint
CREATE UNIQUE INDEX `teams_name_uq` ON `teams` ("name" COLLATE NOCASE);--> statement-breakpoint
DROP INDEX `templates_name_uq`;--> statement-breakpoint
CREATE UNIQUE INDEX `templates_name_uq` ON `templates` ("name" COLLATE NOCASE);
