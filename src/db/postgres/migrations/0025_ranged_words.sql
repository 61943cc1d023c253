-- A word's newest matches without its whole posting list (docs/decisions/101-postgres-words-by-id-range.md):
-- the words of each subject and message again, each lexeme prefixed with its ticket's id range
-- (`46|password`: tickets 94,208–96,255, 2,048 ids a range, id >> 11), in GIN expression indexes
-- beside 0022's. A word search newest first (decision 093) asks these for the newest ranges only
-- (`'46|password':* | '47|password':*`): GIN reads those ranges' postings, not every match of the
-- word. The positions are kept, so a phrase (`<->`) means what it means in 0022's indexes.
-- The ticket id is part of the expression: a message moved to another ticket (a merge, a split)
-- is indexed under its new ticket's range by the update itself.
-- A lexeme of 2,040 bytes or more (up to tsvector's 2,047) is left out: with its range it could pass that;
-- the code sends a word that long to 0022's indexes. `'` and `\` cannot come out of hx_words
-- (translate removes them) but are escaped all the same, as the tsvector's text form needs.
CREATE FUNCTION hx_ranged_words(t text, id integer) RETURNS tsvector LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT coalesce(string_agg('''' || (id >> 11) || '|' || replace(replace(w.lexeme, '\', '\\'), '''', '''''') || '''' || coalesce(':' || array_to_string(w.positions, ','), ''), ' '), '')::tsvector
  FROM unnest(hx_words(t)) AS w
  WHERE octet_length(w.lexeme) < 2040
$$;
--> statement-breakpoint
ALTER FUNCTION hx_ranged_words(text, integer) SET search_path FROM CURRENT;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS tickets_subject_ranged_idx ON tickets USING gin (hx_ranged_words(subject, id));
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS transactions_body_ranged_idx ON transactions USING gin (hx_ranged_words(body, ticket_id)) WHERE body IS NOT NULL;
