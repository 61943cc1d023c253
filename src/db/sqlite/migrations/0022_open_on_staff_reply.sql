-- SPEC D6: new becomes open when staff take it up (a default scrip, so admins can turn it off).
-- An existing install gets it too; an empty database is seeded by the code (src/domain/seed.ts).
INSERT INTO `scrips` (`key`, `description`, `condition`, `action`, `template_id`, `queue_id`, `enabled`, `sort_order`, `config`, `created_at`, `updated_at`)
SELECT 'open_on_staff_reply', 'On a staff member''s public reply or Take, move a new ticket to open', 'on_staff_take_up', 'open_new', NULL, NULL, 1, 65, '{}', strftime('%Y-%m-%dT%H:%M:%fZ'), strftime('%Y-%m-%dT%H:%M:%fZ')
WHERE EXISTS (SELECT 1 FROM `users`) AND NOT EXISTS (SELECT 1 FROM `scrips` WHERE `key` = 'open_on_staff_reply');
