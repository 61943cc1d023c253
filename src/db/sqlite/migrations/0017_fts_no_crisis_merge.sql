-- The search index (FTS5, 0006) merges its segments incrementally as it is written, except for
-- a "crisis merge": when one level holds `crisismerge` (16) segments, all of them are merged
-- at once, inside whichever write added the last one. On 100k tickets that is one write of
-- 0.8–1.2 s every ~120 index flushes, on the thread that serves every request (a stall of every
-- request at once). With the crisis merge out of reach (FTS5 caps the setting at 1999), the
-- incremental merging alone keeps the segments in check: over 60,000 messages written six at a
-- time, the slowest write took 177 ms instead of 1,175 ms, with 56 segments instead of 92
-- (docs/decisions/032-search-index-merges.md).
INSERT INTO message_search(message_search, rank) VALUES ('crisismerge', 1000);
