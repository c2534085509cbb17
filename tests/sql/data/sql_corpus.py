"""The SQL read/write corpus: Apache Superset's own verdicts, attacks, and analysts' everyday reads.

``SUPERSET_CASES`` is data taken from Apache Superset's ``tests/unit_tests/sql/parse_tests.py``
(the cases of ``has_mutation``, ``is_mutating`` and the tests around them, ``is_destructive``,
``is_select``): ``(engine, sql, writes)`` where ``writes`` is Superset's verdict. Superset reads
some statements sstools refuses on purpose (``SET``, ``USE``, ``SELECT … INTO @v``, functions it
cannot vouch for), so only its writes bind sstools: none of them may be a read.

``LEGITIMATE_READS`` are reads analysts write, each from the database's documentation; every one
must be a read. ``ATTACKS`` must never be.
"""

from __future__ import annotations

W, R = True, False


def _words(text: str) -> list[str]:
    return text.split()


# test_is_mutating runs these four over every engine Superset knows.
SUPERSET_ENGINES = _words(
    """
    ascend awsathena base bigquery clickhouse clickhousedb cockroachdb couchbase crate databend
    databricks db2 denodo dremio drill druid duckdb dynamodb elasticsearch exa firebird firebolt
    gsheets hana hive ibmi impala kustokql kustosql kylin mariadb motherduck mssql mysql netezza
    oceanbase ocient odelasticsearch oracle pinot postgresql presto pydoris redshift risingwave
    shillelagh snowflake solr sqlite starrocks superset teradatasql trino vertica
    """
)
_EVERY_ENGINE = [
    ("SELECT 1", R),
    ("with source as ( select 1 as one ) select * from source", R),
    ("ALTER TABLE foo ADD COLUMN bar INT", W),
    ("COMMENT ON TABLE t IS 'note'", W),
]

_HAS_MUTATION = [
    ("sqlite", "SELECT 1", R),
    ("sqlite", "INSERT INTO foo VALUES (1)", W),
    ("sqlite", "UPDATE foo SET bar = 2 WHERE id = 1", W),
    ("sqlite", "DELETE FROM foo WHERE id = 1", W),
    ("sqlite", "CREATE TABLE foo (id INT, bar TEXT)", W),
    ("sqlite", "DROP TABLE foo", W),
    ("sqlite", "EXPLAIN SELECT * FROM foo", R),
    ("sqlite", "PRAGMA table_info(foo)", R),
    ("postgresql", "SELECT 1", R),
    ("postgresql", "INSERT INTO foo (id, bar) VALUES (1, 'test')", W),
    ("postgresql", "UPDATE foo SET bar = 'new' WHERE id = 1", W),
    ("postgresql", "DELETE FROM foo WHERE id = 1", W),
    ("postgresql", "CREATE TABLE foo (id SERIAL PRIMARY KEY, bar TEXT)", W),
    ("postgresql", "DROP TABLE foo", W),
    ("postgresql", "EXPLAIN ANALYZE SELECT * FROM foo", R),
    ("postgresql", "EXPLAIN ANALYZE DELETE FROM foo", W),
    ("postgresql", "SHOW search_path", R),
    ("postgresql", "SET search_path TO public", R),
    ("postgres", "with source as (select 1 as one) select * from source", R),
    ("trino", "SELECT 1", R),
    ("trino", "INSERT INTO foo VALUES (1, 'bar')", W),
    ("trino", "UPDATE foo SET bar = 'baz' WHERE id = 1", W),
    ("trino", "DELETE FROM foo WHERE id = 1", W),
    ("trino", "CREATE TABLE foo (id INT, bar VARCHAR)", W),
    ("trino", "DROP TABLE foo", W),
    ("trino", "EXPLAIN SELECT * FROM foo", R),
    ("trino", "SHOW SCHEMAS", R),
    ("trino", "SET SESSION optimization_level = '3'", R),
    ("kustokql", "tbl | limit 100", R),
    ("kustokql", "let foo = 1; tbl | where bar == foo", R),
    ("kustokql", ".show tables", R),
    ("kustokql", "print 1", R),
    ("kustokql", "set querytrace; Events | take 100", R),
    ("kustokql", ".drop table foo", W),
    ("kustokql", ".set-or-append table foo <| bar", W),
    ("base", "SHOW LOCKS test EXTENDED", R),
    ("base", "SET hivevar:desc='Legislators'", R),
    ("base", "UPDATE t1 SET col1 = NULL", W),
    ("base", "EXPLAIN SELECT 1", R),
    ("base", "SELECT 1", R),
    ("base", "WITH bla AS (SELECT 1) SELECT * FROM bla", R),
    ("base", "SHOW CATALOGS", R),
    ("base", "SHOW TABLES", R),
    ("hive", "UPDATE t1 SET col1 = NULL", W),
    ("hive", "INSERT OVERWRITE TABLE tabB SELECT a.Age FROM TableA", W),
    ("hive", "SHOW LOCKS test EXTENDED", R),
    ("hive", "SET hivevar:desc='Legislators'", R),
    ("hive", "EXPLAIN SELECT 1", R),
    ("hive", "SELECT 1", R),
    ("hive", "WITH bla AS (SELECT 1) SELECT * FROM bla", R),
    ("presto", "SET hivevar:desc='Legislators'", R),
    ("presto", "UPDATE t1 SET col1 = NULL", W),
    ("presto", "INSERT OVERWRITE TABLE tabB SELECT a.Age FROM TableA", W),
    ("presto", "SHOW LOCKS test EXTENDED", R),
    ("presto", "EXPLAIN SELECT 1", R),
    ("presto", "SELECT 1", R),
    ("presto", "WITH bla AS (SELECT 1) SELECT * FROM bla", R),
]

_WITH_UNION = (
    "WITH set1 AS (SELECT 1 AS n UNION SELECT 2), set2 AS (SELECT * FROM set1) SELECT * FROM set2"
)
_READ_SHAPES = [
    *[
        (engine, _WITH_UNION, R)
        for engine in ("oracle", "postgresql", "trino", "presto", "hive", "base")
    ],
    (
        "oracle",
        "WITH SET1 AS (SELECT SYSDATE FROM DUAL UNION ALL SELECT SYSDATE FROM DUAL), "
        "SET2 AS (SELECT * FROM SET1) SELECT * FROM SET2",
        R,
    ),
    ("clickhouse", "select groupConcat(', ')(part_name) as concatenated from system.parts", R),
    ("clickhousedb", "select groupConcat(', ')(part_name) as concatenated from system.parts", R),
    ("mysql", "SELECT REPLACE(name, 'a', 'b') FROM t", R),
    ("sqlite", "SELECT REPLACE(name, 'a', 'b') FROM t", R),
]

_FAILS_CLOSED = [
    ("mysql", "CALL evil_proc()"),
    ("postgres", "LOAD '/tmp/x.so'"),
    ("mssql", "EXEC dbo.evil_proc"),
    ("postgresql", "EXPLAIN (ANALYZE) UPDATE t SET x = 1"),
    ("postgresql", "EXPLAIN (ANALYZE, BUFFERS) DELETE FROM t"),
    ("postgresql", "EXPLAIN ANALYZE\nUPDATE t SET x = 1"),
    ("postgresql", "EXPLAIN ANALYSE UPDATE t SET x = 1"),
    ("postgresql", "EXPLAIN /* c */ (ANALYZE) UPDATE t SET x = 1"),
    ("postgresql", "COMMIT"),
    ("mysql", "COMMIT"),
    ("postgresql", "EXPLAIN --c\nANALYZE UPDATE t SET x = 1"),
    ("postgresql", "EXPLAIN ANALYZE VERBOSE UPDATE t SET x = 1"),
    ("postgresql", "EXPLAIN (ANALYZE)"),
    ("postgresql", "EXPLAIN ANALYZE )))"),
    ("postgresql", "EXPLAIN ANALYZE(DELETE FROM t)"),
    ("sqlite", "ATTACH DATABASE 'x.db' AS y"),
    ("sqlite", "DETACH DATABASE y"),
    ("mysql", "REPLACE INTO t VALUES (1)"),
    ("mysql", "RENAME TABLE a TO b"),
    ("mysql", "SET PASSWORD FOR 'u'@'h' = 'p'"),
    (
        "postgresql",
        "DO $$\nBEGIN\n  INSERT INTO public.users (name) VALUES ('SQLLab bypass DML');\nEND;\n$$;",
    ),
    (
        "postgresql",
        "DO $$ BEGIN IF (SELECT COUNT(*) FROM orders WHERE status = 'pending') > 100 THEN "
        "RAISE NOTICE 'High pending order volume detected'; END IF; END; $$;",
    ),
]

_POSTGRES_FUNCTIONS = [
    ("SELECT lo_from_bytea(0, decode('deadbeef', 'hex'))", W),
    ("SELECT lo_export(12345, '/tmp/payload.bin')", W),
    ("SELECT lo_import('/etc/passwd')", W),
    ("SELECT lo_put(12345, 0, decode('00', 'hex'))", W),
    ("SELECT lo_create(0)", W),
    ("SELECT lo_creat(-1)", W),
    ("SELECT lowrite(12345, decode('00', 'hex'))", W),
    ("SELECT lo_truncate(12345, 0)", W),
    ("SELECT lo_truncate64(12345, 0)", W),
    ("SELECT lo_unlink(12345)", W),
    ("SELECT setval('public.my_seq', 1000)", W),
    ("SELECT SETVAL('public.my_seq', 1)", W),
    ("SELECT nextval('public.my_seq')", W),
    ("SELECT currval('public.my_seq')", R),
    ("SELECT lo_get(12345)", R),
    ("SELECT loread(12345, 1024)", R),
    ("SELECT LO_EXPORT(12345, '/tmp/x')", W),
    ("SELECT * INTO new_table FROM existing_table", W),
    ("SELECT col INTO TEMP new_table FROM existing_table", W),
    ("SELECT upper('lo_export')", R),
    ("SELECT length('setval')", R),
    ("SELECT 1", R),
    ("SELECT * FROM users WHERE id = 1", R),
]

_SELECT_INTO = [
    ("oracle", "SELECT col INTO v FROM existing_table", R),
    ("mysql", "SELECT col INTO @v FROM existing_table", R),
    ("redshift", "SELECT * INTO new_table FROM existing_table", W),
    ("redshift", "SELECT col INTO new_table FROM existing_table", W),
    ("mssql", "SELECT * INTO new_table FROM existing_table", W),
    ("mssql", "SELECT col INTO new_table FROM existing_table", W),
    ("mysql", "SELECT setval(my_col)", R),
    ("mysql", "SELECT lo_export(id, path) FROM t", R),
    ("base", "SELECT setval(my_col)", R),
    ("trino", "SELECT lowrite(x)", R),
]

_POSTGRES_COMMANDS = [
    ("PREPARE u AS UPDATE t SET x = 1", W),
    ("PREPARE i AS INSERT INTO t VALUES (1)", W),
    ("EXECUTE my_plan", W),
    ("CALL my_writing_procedure()", W),
    ("COPY t FROM '/tmp/data.csv'", W),
    ("GRANT SELECT ON t TO public", W),
    ("REVOKE SELECT ON t FROM public", W),
    ("SET ROLE other_role", W),
    ("REFRESH MATERIALIZED VIEW mv", W),
    ("REINDEX TABLE t", W),
    ("VACUUM t", W),
    ("SHOW search_path", R),
    ("SHOW all", R),
    ("SHOW server_version", R),
    ("RESET ROLE", W),
    ("CREATE FUNCTION x() RETURNS int AS '/tmp/x.so', 'i' LANGUAGE C", W),
    ("CREATE EXTENSION pg_trgm", W),
    ("ALTER SYSTEM SET wal_level = 'logical'", W),
    ("DROP EXTENSION pg_trgm", W),
    ("LOAD '/tmp/x.so'", W),
    ("create extension pg_trgm", W),
    ("load '/tmp/x.so'", W),
    ("DO $$ BEGIN UPDATE t SET x = 1; END $$", W),
    ("EXPLAIN ANALYZE UPDATE t SET x = 1", W),
    # is_destructive / has_destructive: a destructive statement is a write
    ("DROP TABLE t", W),
    ("DROP TABLE IF EXISTS t", W),
    ("DROP VIEW v", W),
    ("TRUNCATE TABLE t", W),
    ("ALTER TABLE t ADD COLUMN x INT", W),
    ("ALTER TABLE t DROP COLUMN x", W),
    ("SELECT 1; DROP TABLE t", W),
    ("SELECT 1; TRUNCATE TABLE t", W),
    ("CREATE TABLE t (id INT); ALTER TABLE t ADD COLUMN x INT", W),
    ("MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE", W),
    # is_select
    ("SELECT * FROM users", R),
    ("WITH cte AS (SELECT * FROM users) SELECT * FROM cte", R),
    ("CREATE TABLE users AS SELECT * FROM users", W),
    ("SET @value = 42", R),
    # changes_search_path: each of these writes somewhere
    ("SELECT set_config('search_path', 'information_schema', true)", W),
    ("SELECT set_config('search_' || 'path', 'information_schema', true)", W),
    ("EXPLAIN ANALYZE SELECT set_config('search_path', 'information_schema', false)", W),
    ("EXPLAIN (ANALYZE, BUFFERS) SELECT set_config('search_path', 'information_schema', false)", W),
    ("EXPLAIN ANALYZE(SELECT set_config('search_path', 'information_schema', false))", W),
    ("RESET search_path", W),
    ("RESET ALL", W),
    ("SET search_path = tenant_b", W),
    ("SET SCHEMA 'tenant_b'", W),
    ("SET current_schema = foo", W),
    ("EXPLAIN ANALYZE SET SCHEMA 'tenant_b'", W),
    ("EXPLAIN ANALYZE SELECT * FROM search_path_audit", R),
    ("EXPLAIN VERBOSE SELECT * FROM orders", R),
    ("EXPLAIN (COSTS) SELECT * FROM orders", R),
]

_STARROCKS = [
    ("ANALYZE TABLE tbl_name", W),
    ("ANALYZE TABLE tbl_name DROP HISTOGRAM ON col_name", W),
    ("ANALYZE TABLE tbl_name UPDATE HISTOGRAM ON v1,v2 WITH 32 BUCKETS", W),
    ("KILL ANALYZE 266030", W),
    ("KILL QUERY 5", W),
    ("KILL 20", W),
    ("REFRESH MATERIALIZED VIEW lo_mv1", W),
    ("REFRESH DICTIONARY dict_obj", W),
    ("REFRESH CONNECTIONS", W),
    ("REFRESH EXTERNAL TABLE t1", W),
    ("CANCEL REFRESH MATERIALIZED VIEW lo_mv1", W),
    ("SET PASSWORD FOR 'jack'@'192.%' = PASSWORD('123456')", W),
    ("SET ROLE db_admin", W),
    ("SET ROLE ALL EXCEPT db_admin", W),
    ("SET DEFAULT ROLE db_admin TO test", W),
    ("SET DEFAULT STORAGE VOLUME my_s3_volume", W),
    ("SET PASSWORD = PASSWORD('123456')", W),
    ("SET time_zone = 'UTC'", R),
    ("SET SESSION time_zone = 'UTC'", R),
    ("SET @myvar = 1", R),
    ("SET NAMES utf8mb4", R),
    ('BACKUP SNAPSHOT example_db.snapshot_label1 TO example_repo PROPERTIES ("type" = "full")', W),
    ("CANCEL BACKUP FROM example_db", W),
    ("CANCEL RESTORE FROM example_db", W),
    ('CANCEL LOAD WHERE LABEL = "example_label"', W),
    ("CANCEL ALTER TABLE COLUMN FROM example_db.my_table", W),
    ('EXPORT TABLE testTbl TO "hdfs://h:9000/a/b/c/testTbl_" WITH BROKER', W),
    ("PAUSE ROUTINE LOAD FOR example_db.example_tbl1_ordertest1", W),
    ("RESUME ROUTINE LOAD FOR example_db.example_tbl1_ordertest1", W),
    ("STOP ROUTINE LOAD FOR example_db.example_tbl1_ordertest1", W),
    ("SUBMIT TASK etl0 AS CREATE TABLE tbl1 AS SELECT * FROM src_tbl", W),
    ("RECOVER DATABASE example_db", W),
    ("RECOVER TABLE example_db.example_tbl", W),
    ('ADMIN SET FRONTEND CONFIG ("disable_balance" = "true")', W),
    ('ADD SQLBLACKLIST "select count(*) from .+"', W),
    ("DELETE SQLBLACKLIST 3, 4", W),
    ("ADD BACKEND BLACKLIST 10001", W),
    ("DELETE BACKEND BLACKLIST 10001", W),
    ("DELETE FROM my_table WHERE k1 = 3", W),
    ("DELETE FROM my_table PARTITION p1 WHERE k1 = 3", W),
    ("TRANSLATE TRINO SELECT 1", R),
    ("SELECT 1", R),
    ("SHOW TABLES", R),
    ("SHOW TABLES IN catalog_1.schema_a", R),
]

_DEFAULT_SCHEMA = [
    ("mysql", "USE tenant_b; SELECT * FROM orders", W),
    ("mysql", "use `tenant_b`", W),
    ("snowflake", "USE SCHEMA tenant_b", W),
    ("snowflake", "USE WAREHOUSE compute_wh", R),
    ("postgresql", "SELECT set_config('search_path', 'tenant_b', false)", W),
    ("postgresql", "SET CATALOG tenant_b", W),
    ("postgresql", "SET CURRENT SCHEMA foo", W),
    ("postgresql", "DO $$ BEGIN SET SCHEMA 'tenant_b'; END $$", W),
    ("postgresql", "EXECUTE 'SET SCHEMA ''tenant_b'''", W),
    ("postgresql", "SELECT set_config(schema_col, 'tenant_b', false)", W),
    ("postgresql", "SET LOCAL SCHEMA 'tenant_b'", W),
    ("mysql", "CALL p(1--2, 'SET SCHEMA evil')", W),
    ("snowflake", "CALL p('it\\'s -- x', 'SET SCHEMA evil')", W),
    ("snowflake", "EXECUTE IMMEDIATE $$ REMOVE @my_stage/path $$", W),
    ("snowflake", "PUT file:///tmp/data.csv @my_stage", W),
    ("snowflake", "GET @my_stage file:///tmp/", W),
    ("snowflake", "REMOVE @my_stage/path", W),
    ("snowflake", "RM @my_stage/path", W),
    ("mysql", "SHOW TABLES FROM s1 like '%order%'", R),
    ("mysql", "SHOW CREATE TABLE s1.t1", R),
    ("mysql", "show columns from foo from bar", R),
    ("starrocks", "SHOW CREATE TABLE test.will_test1", R),
    ("snowflake", "SHOW DATABASES", R),
]

SUPERSET_CASES: list[tuple[str, str, bool]] = [
    *[(engine, sql, writes) for engine in SUPERSET_ENGINES for sql, writes in _EVERY_ENGINE],
    *_HAS_MUTATION,
    *_READ_SHAPES,
    *[(engine, sql, W) for engine, sql in _FAILS_CLOSED],
    *[("postgresql", sql, writes) for sql, writes in _POSTGRES_FUNCTIONS],
    *_SELECT_INTO,
    *[("postgresql", sql, writes) for sql, writes in _POSTGRES_COMMANDS],
    *[("starrocks", sql, writes) for sql, writes in _STARROCKS],
    *_DEFAULT_SCHEMA,
]

# Writes a database runs although every sqlglot dialect reads one harmless query (SQL Server
# needs no ";" and reserves these words), and calls the references name as acting outside.
ATTACKS: list[tuple[str, str]] = [
    ("mssql", "SELECT 1 DELETE FROM t"),
    ("mssql", "SELECT TOP 1 1 DELETE FROM t WHERE 1=1"),
    ("mssql", "SELECT 1 COMMIT"),
    ("mssql", "SELECT 1 RECONFIGURE"),
    ("mssql", "SELECT 1 SHUTDOWN"),
    ("mssql", "SELECT 1 ROLLBACK"),
    ("mssql", "SELECT name FROM sys.tables DELETE FROM t"),
    ("mssql", "SELECT * FROM OPENROWSET('SQLNCLI', 'Server=x;', 'SELECT 1')"),
    ("postgresql", "SELECT 1 DELETE FROM t"),
    ("postgresql", "EXPLAIN ANALYZE WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d"),
    ("postgresql", "EXPLAIN ANALYZE SELECT nextval('s')"),
    ("postgresql", "SELECT query_to_xml('DELETE FROM t RETURNING *', true, false, '')"),
    ("postgresql", "SELECT pg_read_file('/etc/passwd')"),
    ("postgresql", "SELECT pg_sleep(60)"),
    ("postgresql", "SELECT set_config('role', 'admin', false)"),
    ("mysql", "SELECT LAST_INSERT_ID(42)"),
    ("mysql", "SELECT SLEEP(60)"),
    ("snowflake", "SHOW TABLES ->> DELETE FROM t"),
    ("snowflake", "SELECT 1 ->> DELETE FROM t"),  # read elsewhere as JSON extraction
    ("snowflake", "SELECT * FROM t ->> DROP TABLE t"),
    ("clickhouse", "SELECT * FROM url('http://attacker/x', CSV, 'a String')"),
    ("clickhouse", "SELECT * FROM file('/etc/passwd', 'LineAsString')"),
    ("clickhouse", "SELECT * FROM remote('other-host', db.t)"),
    ("clickhouse", "SELECT * FROM s3('https://bucket/x.csv')"),
    ("clickhouse", "SELECT * FROM executable('evil.sh', CSV, 'a String')"),
    ("clickhouse", "SELECT sleepEachRow(1) FROM numbers(100)"),
    ("sqlite", "SELECT load_extension('evil')"),
    ("kustokql", ".drop table foo"),
    ("firebird", "EXECUTE BLOCK AS BEGIN DELETE FROM t; END"),
]

# Reads an analyst writes, per database; each must be a read for the API and for the agent.
LEGITIMATE_READS: list[tuple[str, str]] = [
    ("postgresql", "SHOW search_path"),
    ("postgresql", "SHOW server_version"),
    ("postgresql", "SHOW all"),  # sqlglot's duckdb parser fails on it: that reading is skipped
    ("mysql", "SHOW TABLES"),
    ("mysql", "SHOW CREATE TABLE t"),
    ("trino", "SHOW SCHEMAS"),
    ("clickhouse", "SHOW TABLES"),
    ("snowflake", "SHOW TABLES"),
    ("postgresql", "EXPLAIN SELECT * FROM t"),
    ("postgresql", "SELECT payload ->> 'delete' AS flag FROM events"),  # a JSON key
    ("postgresql", "EXPLAIN ANALYZE SELECT * FROM t"),
    ("postgresql", "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT * FROM t"),
    ("sqlite", "EXPLAIN QUERY PLAN SELECT * FROM t"),
    ("mysql", "EXPLAIN SELECT * FROM t"),
    ("trino", "EXPLAIN SELECT * FROM t"),
    ("mysql", "DESCRIBE t"),
    ("postgresql", "TABLE t"),
    ("sqlite", "SELECT name, type FROM pragma_table_info('regions')"),
    ("sqlite", "SELECT * FROM pragma_index_list('regions')"),
    # PostgreSQL
    ("postgresql", "SELECT jsonb_agg(r) FROM regions r"),
    ("postgresql", "SELECT json_agg(r) FROM regions r"),
    ("postgresql", "SELECT jsonb_array_length(tags) FROM t"),
    ("postgresql", "SELECT jsonb_build_object('region', region, 'n', 1) FROM regions"),
    ("postgresql", "SELECT json_build_object('a', 1)"),
    ("postgresql", "SELECT to_jsonb(r) FROM regions r"),
    ("postgresql", "SELECT row_to_json(r) FROM regions r"),
    ("postgresql", "SELECT key, value FROM t, jsonb_each(t.doc)"),
    ("postgresql", "SELECT jsonb_object_keys(doc) FROM t"),
    ("postgresql", "SELECT jsonb_extract_path_text(doc, 'a', 'b') FROM t"),
    ("postgresql", "SELECT jsonb_array_elements_text(tags) FROM t"),
    ("postgresql", "SELECT jsonb_pretty(doc), jsonb_typeof(doc) FROM t"),
    ("postgresql", "SELECT jsonb_path_query(doc, '$.a') FROM t"),
    ("postgresql", "SELECT date_part('year', day) FROM t"),
    ("postgresql", "SELECT pg_size_pretty(pg_total_relation_size('regions'))"),
    ("postgresql", "SELECT pg_size_pretty(pg_database_size(current_database()))"),
    ("postgresql", "SELECT pg_typeof(population_thousands) FROM regions"),
    ("postgresql", "SELECT current_setting('TimeZone')"),
    ("postgresql", "SELECT has_table_privilege('regions', 'SELECT')"),
    ("postgresql", "SELECT quote_ident(region), quote_literal(region) FROM regions"),
    ("postgresql", "SELECT to_tsvector('russian', body) FROM docs"),
    (
        "postgresql",
        "SELECT ts_rank(to_tsvector(body), plainto_tsquery('энергия')) FROM docs "
        "WHERE to_tsvector(body) @@ websearch_to_tsquery('энергия')",
    ),
    ("postgresql", "SELECT similarity(region, 'Москва') FROM regions"),
    ("postgresql", "SELECT currval('orders_id_seq')"),
    ("postgresql", "SELECT lo_get(16385)"),
    ("postgresql", "SELECT regexp_split_to_table('a,b', ',')"),
    ("postgresql", "SELECT string_to_array('a,b', ','), array_to_string(ARRAY[1, 2], ',')"),
    ("postgresql", "SELECT obj_description('regions'::regclass), format_type(23, NULL)"),
    ("postgresql", "SELECT pg_get_viewdef('v'), pg_backend_pid(), clock_timestamp()"),
    ("postgresql", "SELECT make_timestamptz(2025, 1, 1, 0, 0, 0), justify_interval(age(day))"),
    ("postgresql", "SELECT generate_subscripts(ARRAY[1, 2], 1), width_bucket(5, 0, 10, 5)"),
    ("postgresql", "SELECT gen_random_uuid(), num_nulls(NULL, 1)"),
    ("postgresql", "SELECT every(population_thousands > 0) FROM regions"),
    ("postgresql", "SELECT levenshtein(region, 'Москва') FROM regions"),
    # ClickHouse
    ("clickhouse", "SELECT uniqExact(user_id) FROM events"),
    ("clickhouse", "SELECT sumIf(amount, status = 'paid') FROM orders"),
    ("clickhouse", "SELECT groupArray(region) FROM regions"),
    ("clickhouse", "SELECT toDate(ts) FROM events"),
    ("clickhouse", "SELECT toYYYYMM(ts), count() FROM events GROUP BY 1"),
    ("clickhouse", "SELECT arrayJoin([1, 2, 3]) AS x"),
    ("clickhouse", "SELECT quantiles(0.5, 0.9)(amount) FROM orders"),
    ("clickhouse", "SELECT topK(10)(region) FROM orders"),
    ("clickhouse", "SELECT toString(user_id) FROM events"),
    ("clickhouse", "SELECT multiIf(amount > 100, 'big', amount > 10, 'mid', 'small') FROM orders"),
    ("clickhouse", "SELECT countIf(amount > 0), avgIf(amount, amount > 0), uniq(user_id) FROM t"),
    ("clickhouse", "SELECT argMax(amount, ts), toStartOfMonth(ts), dateDiff('day', a, b) FROM t"),
    ("clickhouse", "SELECT uniqExactIf(user_id, amount > 0), sumArray(amounts) FROM t"),
    ("clickhouse", "SELECT formatDateTime(now(), '%Y-%m'), toUInt32OrZero('5')"),
    ("clickhouse", "SELECT number FROM numbers(10)"),
    # MySQL
    ("mysql", "SELECT JSON_UNQUOTE(JSON_EXTRACT(doc, '$.a')) FROM t"),
    ("mysql", "SELECT FIND_IN_SET('b', 'a,b,c')"),
    ("mysql", "SELECT INET_ATON('10.0.0.1'), INET_NTOA(167772161)"),
    ("mysql", "SELECT JSON_LENGTH(doc), JSON_CONTAINS(doc, '1'), USER(), LAST_INSERT_ID()"),
    ("mysql", "SELECT DATE_FORMAT(day, '%Y-%m'), TIMESTAMPDIFF(DAY, a, b) FROM t"),
    # T-SQL
    ("mssql", "SELECT DATEPART(year, day) FROM t"),
    ("mssql", "SELECT TOP 10 DATENAME(month, day), EOMONTH(day), DB_NAME() FROM t"),
    ("mssql", "SELECT ISNULL(a, 0), IIF(a > 1, 1, 0), CHARINDEX('a', s), LEN(s) FROM t"),
    # an engine sqlglot has no dialect for: plain SQL still reads
    ("firebird", "SELECT * FROM regions"),
]

# Session statements: writes on purpose, and the reason says why.
SESSION_STATEMENTS: list[tuple[str, str, str]] = [
    ("postgresql", "SET search_path = public", "для следующих операторов"),
    ("postgresql", "SET ROLE analyst", "для следующих операторов"),
    ("mysql", "USE analytics", "для следующих операторов"),
    ("mssql", "USE master", "для следующих операторов"),
    ("postgresql", "RESET ALL", "для следующих операторов"),
]
