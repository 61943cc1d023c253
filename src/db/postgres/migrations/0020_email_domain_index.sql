-- Issue 32 (as SQLite's migration 0033): the requesters of an e-mail domain, counted through an
-- index of the domain part (after the first @, lower-cased) and the role. The query names the
-- same expression through the store port (emailDomain).
CREATE INDEX "users_email_domain_idx" ON "users" (lower(substr("email", strpos("email", '@') + 1)), "role");
