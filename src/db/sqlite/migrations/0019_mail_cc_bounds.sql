CREATE TABLE `ticket_mail_cc` (
	`ticket_id` integer NOT NULL,
	`email` text NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`added` integer NOT NULL,
	`reason` text,
	`transaction_id` integer,
	`created_at` text NOT NULL,
	PRIMARY KEY(`ticket_id`, `email`),
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`transaction_id`) REFERENCES `transactions`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
ALTER TABLE `queues` ADD `mail_cc_per_message` integer DEFAULT 10 NOT NULL;--> statement-breakpoint
ALTER TABLE `queues` ADD `mail_cc_per_ticket` integer DEFAULT 20 NOT NULL;--> statement-breakpoint
ALTER TABLE `transactions` ADD `outside_sender` integer DEFAULT false NOT NULL;--> statement-breakpoint
-- SPEC D0: the default staff template says when a message came from an outside sender (only where it is unchanged).
UPDATE `templates` SET `body` = '{% if transaction.outside_sender %}{{ transaction.creator.name | default: transaction.creator.email }} <{{ transaction.creator.email }}>, who is not on ticket #{{ ticket.id }} ({{ ticket.queue.name }}, {{ ticket.status }}, owner: {{ ticket.owner.name | default: "nobody" }}), wrote to it. It is kept as an internal comment and nobody else was mailed; to let them in, choose "Add as Cc" on the ticket.{% else %}{{ transaction.creator.name | default: transaction.creator.email }} replied on ticket #{{ ticket.id }} ({{ ticket.queue.name }}, {{ ticket.status }}, owner: {{ ticket.owner.name | default: "nobody" }}):{% endif %}

{{ transaction.body }}

--
{{ ticket.url }}', `updated_at` = strftime('%Y-%m-%dT%H:%M:%fZ')
WHERE `name` = 'Staff correspondence' COLLATE NOCASE AND `body` = '{{ transaction.creator.name | default: transaction.creator.email }} replied on ticket #{{ ticket.id }} ({{ ticket.queue.name }}, {{ ticket.status }}, owner: {{ ticket.owner.name | default: "nobody" }}):

{{ transaction.body }}

--
{{ ticket.url }}';
