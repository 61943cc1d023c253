CREATE TABLE `login_throttle` (
	`key` text PRIMARY KEY NOT NULL,
	`failures` integer NOT NULL,
	`window_start` text NOT NULL,
	`window_end` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `login_throttle_end_idx` ON `login_throttle` (`window_end`);