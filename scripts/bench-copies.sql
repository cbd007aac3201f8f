-- scripts/bench.sh with BENCH_COPIES=N (PostgreSQL): adds N-1 copies of the
-- personalization data generated at ROWS/N, with user ids shifted by
-- k*1 000 000 and content ids by k*100 000 000 (k = 1..N-1), so that ten
-- million rows load in minutes instead of an hour of INSERT statements. The
-- copies have the same shape (sizes, JSON settings, keys per user) as the
-- generated rows. Needs the generated user ids below 1 000 000 and content
-- ids below 100 000 000 (gen -scale up to 6 000). The shifts are bigint
-- arithmetic: from 22 copies on, k*100 000 000 is past the integer range.
\set ON_ERROR_STOP 1
INSERT INTO users (user_id, email, name, is_active, created_at)
  SELECT user_id + k*1000000::bigint, 'c' || k || '.' || email, name, is_active, created_at FROM users, generate_series(1, :copies - 1) k;
INSERT INTO subscribe (service, content_type, content_origin_id, title, created_at)
  SELECT service, content_type, content_origin_id + k*100000000::bigint, title, created_at FROM subscribe, generate_series(1, :copies - 1) k;
INSERT INTO personal (user_id, service, setting_type, settings, updated_at)
  SELECT user_id + k*1000000::bigint, service, setting_type, settings, updated_at FROM personal, generate_series(1, :copies - 1) k;
INSERT INTO subscribe_user (user_id, service, content_type, content_origin_id, subscribed_at)
  SELECT user_id + k*1000000::bigint, service, content_type, content_origin_id + k*100000000::bigint, subscribed_at FROM subscribe_user, generate_series(1, :copies - 1) k;
