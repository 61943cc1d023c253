CREATE TABLE `app_secrets` (
	`name` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `queue_watchers` (
	`queue_id` integer NOT NULL,
	`role` text NOT NULL,
	`user_id` integer NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`queue_id`, `role`, `user_id`),
	FOREIGN KEY (`queue_id`) REFERENCES `queues`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `queue_watchers_user_idx` ON `queue_watchers` (`user_id`);--> statement-breakpoint
CREATE TABLE `ticket_watchers` (
	`ticket_id` integer NOT NULL,
	`role` text NOT NULL,
	`user_id` integer NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`ticket_id`, `role`, `user_id`),
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `ticket_watchers_user_idx` ON `ticket_watchers` (`user_id`,`role`);--> statement-breakpoint
ALTER TABLE `outbox` ADD `audience` text;--> statement-breakpoint
ALTER TABLE `outbox` ADD `attachment_ids` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `queues` ADD `keep_mail_cc` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `queues` ADD `signature` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `timezone` text DEFAULT 'UTC' NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `signature` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `notify_new_tickets` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `notify_replies` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `notify_notes` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `portal_epoch` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Every existing ticket's requester is its first requester watcher.
INSERT OR IGNORE INTO `ticket_watchers` (`ticket_id`, `role`, `user_id`, `created_at`)
SELECT `id`, 'requester', `requester_id`, `created_at` FROM `tickets` WHERE `requester_id` IS NOT NULL;--> statement-breakpoint
-- SPEC C2's recipients for an existing install (a new one gets them from the seed; an empty
-- database, not yet seeded, is left alone). The staff templates are added unless a template of
-- that name exists; the changed default scrips are changed only while they are still the default.
INSERT INTO `templates` (`name`, `description`, `subject`, `body`, `queue_id`, `created_at`, `updated_at`)
SELECT 'Staff correspondence', 'Tells the staff on a ticket about a public reply (owner, AdminCc; the team when unowned)', 'Re: {{ ticket.subject }}', '{{ transaction.creator.name | default: transaction.creator.email }} replied on ticket #{{ ticket.id }} ({{ ticket.queue.name }}, {{ ticket.status }}, owner: {{ ticket.owner.name | default: "nobody" }}):

{{ transaction.body }}

--
{{ ticket.url }}', NULL, strftime('%Y-%m-%dT%H:%M:%fZ'), strftime('%Y-%m-%dT%H:%M:%fZ')
WHERE EXISTS (SELECT 1 FROM `users`) AND NOT EXISTS (SELECT 1 FROM `templates` WHERE `name` = 'Staff correspondence' COLLATE NOCASE);--> statement-breakpoint
INSERT INTO `templates` (`name`, `description`, `subject`, `body`, `queue_id`, `created_at`, `updated_at`)
SELECT 'Staff note', 'Tells the owner and AdminCc about an internal note', 'Re: {{ ticket.subject }}', 'Internal note by {{ transaction.creator.name | default: transaction.creator.email }} on ticket #{{ ticket.id }} ({{ ticket.queue.name }}). It was not sent to the requester.

{{ transaction.body }}

--
{{ ticket.url }}', NULL, strftime('%Y-%m-%dT%H:%M:%fZ'), strftime('%Y-%m-%dT%H:%M:%fZ')
WHERE EXISTS (SELECT 1 FROM `users`) AND NOT EXISTS (SELECT 1 FROM `templates` WHERE `name` = 'Staff note' COLLATE NOCASE);--> statement-breakpoint
INSERT INTO `templates` (`name`, `description`, `subject`, `body`, `queue_id`, `created_at`, `updated_at`)
SELECT 'New ticket', 'Tells the staff watching a queue about a new ticket', 'New ticket: {{ ticket.subject }}', 'New ticket #{{ ticket.id }} in {{ ticket.queue.name }} from {{ ticket.requester.name }} <{{ ticket.requester.email }}>{% if ticket.cc.size > 0 %}
Cc: {% for p in ticket.cc %}{{ p.name }} <{{ p.email }}>{% unless forloop.last %}, {% endunless %}{% endfor %}{% endif %}
Owner: {{ ticket.owner.name | default: "nobody" }}   Team: {{ ticket.team.name | default: "none" }}

{{ ticket.description }}

--
{{ ticket.url }}', NULL, strftime('%Y-%m-%dT%H:%M:%fZ'), strftime('%Y-%m-%dT%H:%M:%fZ')
WHERE EXISTS (SELECT 1 FROM `users`) AND NOT EXISTS (SELECT 1 FROM `templates` WHERE `name` = 'New ticket' COLLATE NOCASE);--> statement-breakpoint
INSERT INTO `scrips` (`key`, `description`, `condition`, `action`, `template_id`, `queue_id`, `enabled`, `sort_order`, `config`, `created_at`, `updated_at`)
SELECT 'notify_staff_on_create', 'On create, tell the staff watchers (owner, ticket and queue AdminCc, the team)', 'on_create', 'notify_staff_watchers', (SELECT `id` FROM `templates` WHERE `name` = 'New ticket' COLLATE NOCASE), NULL, 1, 15, '{}', strftime('%Y-%m-%dT%H:%M:%fZ'), strftime('%Y-%m-%dT%H:%M:%fZ')
WHERE EXISTS (SELECT 1 FROM `users`) AND NOT EXISTS (SELECT 1 FROM `scrips` WHERE `key` = 'notify_staff_on_create');--> statement-breakpoint
INSERT INTO `scrips` (`key`, `description`, `condition`, `action`, `template_id`, `queue_id`, `enabled`, `sort_order`, `config`, `created_at`, `updated_at`)
SELECT 'notify_staff_on_customer_reply', 'On a reply from a requester or Cc: the owner, or the staff watchers when unowned', 'on_customer_correspond', 'notify_owner_or_staff_watchers', (SELECT `id` FROM `templates` WHERE `name` = 'Staff correspondence' COLLATE NOCASE), NULL, 1, 35, '{}', strftime('%Y-%m-%dT%H:%M:%fZ'), strftime('%Y-%m-%dT%H:%M:%fZ')
WHERE EXISTS (SELECT 1 FROM `users`) AND NOT EXISTS (SELECT 1 FROM `scrips` WHERE `key` = 'notify_staff_on_customer_reply');--> statement-breakpoint
INSERT INTO `scrips` (`key`, `description`, `condition`, `action`, `template_id`, `queue_id`, `enabled`, `sort_order`, `config`, `created_at`, `updated_at`)
SELECT 'notify_staff_on_comment', 'On an internal note, tell the owner and AdminCc', 'on_comment', 'notify_owner_and_admin_cc', (SELECT `id` FROM `templates` WHERE `name` = 'Staff note' COLLATE NOCASE), NULL, 1, 36, '{}', strftime('%Y-%m-%dT%H:%M:%fZ'), strftime('%Y-%m-%dT%H:%M:%fZ')
WHERE EXISTS (SELECT 1 FROM `users`) AND NOT EXISTS (SELECT 1 FROM `scrips` WHERE `key` = 'notify_staff_on_comment');--> statement-breakpoint
UPDATE `scrips` SET `action` = 'notify_requesters_and_cc', `description` = 'On a public reply, send it to the requesters (To) and Cc'
WHERE `key` = 'notify_requester_on_correspond' AND `action` = 'notify_requester';--> statement-breakpoint
UPDATE `scrips` SET `action` = 'notify_owner_and_admin_cc', `description` = 'On a public reply, send a staff copy to the owner and AdminCc',
  `template_id` = (SELECT `id` FROM `templates` WHERE `name` = 'Staff correspondence' COLLATE NOCASE)
WHERE `key` = 'notify_owner_on_correspond' AND `action` = 'notify_owner'
  AND `template_id` = (SELECT `id` FROM `templates` WHERE `name` = 'Correspondence' COLLATE NOCASE);
