CREATE TABLE `imap_state` (
	`mailbox` text PRIMARY KEY NOT NULL,
	`uid_validity` text NOT NULL,
	`last_uid` integer NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `mail_intake_sender_idx` ON `mail_intake` (`sender`,`created_at`);