"""SQL shared by the SQL tests and the sandbox's: writes, reads, and the two verdicts compared.

- :data:`WRITES`: writes however they hide (CTEs, comments, after ``;``), in any dialect.
- :data:`HIDDEN_WRITES`, :data:`DEMO_READS`: dialect-divergent writes; analysts' demo reads.
- :data:`HEADS`, :data:`PAYLOADS`, :data:`TEMPLATES`, :data:`FRAGMENTS`: the pieces the
  dialect properties combine (``{h}`` a read, ``{p}`` a write).
- :func:`agent_kind`, :func:`database_kind`: what the agent's guardrails and ``/api/sql/execute``
  decide for one text.
"""

from __future__ import annotations

from sstools.agent.tools import CATALOGUE
from sstools.agent.tools.spec import ToolKind
from sstools.sql import SqlKind, SqlSyntaxError, classify

EXECUTE_SQL = CATALOGUE["superset_execute_sql"]


def agent_kind(sql: str) -> ToolKind:
    """The kind the agent's guardrails see for this SQL (decides whether a card is shown)."""
    args = EXECUTE_SQL.args_model.model_validate({"sql": sql, "database_id": 1})
    return EXECUTE_SQL.kind_for(args)


def database_kind(sql: str, dialect: str) -> SqlKind | None:
    """What ``/api/sql/execute`` decides for a database of this dialect; None: it answers 422."""
    try:
        return classify(sql, dialect).kind
    except SqlSyntaxError:
        return None


WRITES = [
    "delete from regions",
    "DELETE FROM regions WHERE 1=1",
    "update regions set population_thousands = 0",
    "insert into regions values ('x', 'y', 1)",
    "insert into t select * from u",
    "drop table regions",
    "create table x (a int)",
    "create table x as select * from regions",
    "alter table regions add column z int",
    "truncate table regions",
    "with x as (select 1) delete from regions",
    "with x as (select 1) insert into t select * from x",
    "with d as (delete from t returning *) select * from d",
    "with u as (update t set a = 1 returning *) select count(*) from u",
    "/* harmless */ delete from regions",
    "-- comment\nupdate t set a = 1",
    "select 1; delete from regions",
    "select 1;drop table regions",
    "select * into backup from regions",
    "select * from t for update",
    "merge into t using u on t.id = u.id when matched then update set a = u.a",
    "grant select on t to public",
    "pragma writable_schema = 1",
    "attach database 'x.db' as x",
    "vacuum",
    "select nextval('seq')",
    "select set_config('role', 'admin', false)",
    "select pg_terminate_backend(123)",
    "select load_extension('evil')",
    "replace into regions values ('x', 'y', 1)",
    "set search_path = evil",
    "begin; delete from t; commit",
]


# Each was a read for the dialect-less parse the agent used, while the database runs a write.
HIDDEN_WRITES = [
    # MySQL needs whitespace after "--": "--1" is minus minus one, and the DELETE runs.
    ("select 1 --1; delete from regions", "mysql"),
    # Block comments nest in the generic parse, not in SQLite or MySQL: the DELETE is outside.
    ("select 1 /* /* */ ; delete from regions; -- */", "sqlite"),
    ("select 1 /* /* */ ; delete from regions; -- */", "mysql"),
    # SQLite runs the DELETE, then stops at the stray "*/" that makes sqlglot's reading fail.
    ("select 1 /* /* */ ; delete from regions; /* */ */", "sqlite"),
    # MySQL runs the body of an executable comment.
    ("select * from regions /*!50000 for update */", "mysql"),
    ("select 1 /*! into outfile '/tmp/sstools-x' */", "mysql"),
    ("select 1 /*M! , get_lock('x', 10) */", "mysql"),
]


# What analysts ask of the demo SQLite database (and the agent writes for them).
DEMO_READS = [
    "select strftime('%Y-%m', day) as month, sum(consumption_mwh) from energy_consumption "
    "group by 1 order by 1",
    "select region, round(avg(avg_temp_c), 1) as t from weather_daily group by region",
    "select printf('%.2f', sum(revenue_rub)) from sales_orders",
    "select julianday('2025-12-31') - julianday(min(day)) from energy_consumption",
    "select coalesce(channel, '—') as channel, count(*) from sales_orders group by 1",
    "select date(day, 'start of month') as m, max(peak_load_mw) from energy_consumption group by m",
    "select datetime(day) from energy_consumption limit 1",
    "select region, total(quantity) from sales_orders group by region",
    "select substr(region, 1, 3), upper(sector), length(sector) from energy_consumption limit 5",
    "select cast(strftime('%m', order_date) as integer) as month, sum(revenue_rub) "
    "from sales_orders where order_date between '2025-01-01' and '2025-06-30' "
    "group by month having sum(revenue_rub) > 0",
    "select region, day, sum(consumption_mwh) over (partition by region order by day "
    "rows between 6 preceding and current row) as week from energy_consumption",
    "select * from regions where region in "
    "(select region from sales_orders where channel = 'Онлайн')",
    "select iif(avg_temp_c < 0, 'мороз', 'тепло') as k, count(*) from weather_daily group by k",
    "select case when quantity > 10 then 'опт' else 'розница' end, count(*) from sales_orders "
    "group by 1",
    "select region, ifnull(nullif(federal_district, ''), '?') from regions",
    "select region, group_concat(sector, ', ') from energy_consumption group by region",
    "select region from regions order by random() limit 3",
    "select e.region, sum(e.consumption_mwh) / r.population_thousands as per_capita "
    "from energy_consumption e join regions r on r.region = e.region group by e.region",
    "select product, min(revenue_rub), max(revenue_rub), count(distinct region) "
    "from sales_orders group by product",
    "select typeof(day), abs(avg_temp_c), instr(region, 'край'), replace(region, ' ', '_'), "
    "trim(region), lower(region) from weather_daily limit 1",
    "with monthly as (select strftime('%Y-%m', order_date) as m, sum(revenue_rub) as r "
    "from sales_orders group by m) select m, r, r - lag(r) over (order by m) from monthly",
    "select tariff, price_rub_kwh from tariffs_legacy where tariff like '%Зел%'",
]


# -- dialect-divergent constructs, for the properties -------------------------------------------

HEADS = ["select 1", "select region from regions", "select count(*) from regions where a = 'x'"]
PAYLOADS = [
    "delete from regions",
    "update regions set population_thousands = 0",
    "drop table regions",
    "insert into regions values ('x', 'y', 1)",
    "create table evil (a int)",
    "select * from regions for update",
    "select pg_advisory_lock(1)",
    "select get_lock('x', 1)",
]
# {h}: a read; {p}: a write. Each hides {p} from some tokenizers and not from others.
TEMPLATES = [
    "{h} --1; {p}",
    "{h} --\t; {p}",
    "{h} # ; {p}",
    "{h} #\n; {p}",
    "{h} /*! ; {p} */",
    "{h}; /*!50000 {p} */",
    "{h} /*M!100000 ; {p} */",
    "{h} /* /* */ ; {p}; -- */",
    "{h} /* /* */ ; {p}; /* */ */",
    "{h} /* -- */ ; {p}",
    "{h} -- /*\n; {p} -- */",
    "select `a;` from regions; {p}",
    "select `a; {p}; --` from regions",
    "select [a; {p}; --] from regions",
    'select "a; {p}; --" from regions',
    'select "a\\"; {p}; -- "',
    "select 'a\\'; {p}; -- '",
    "select 'a\\\\'; {p}; -- '",
    "select E'\\''; {p}; --'",
    "select e'a\\\\'; {p}; -- '",
    "select $$ ; {p}; $$",
    "select $q$ ; {p}; $q$",
    "select $q$ ; {p}; $r$ ; $q$",
    "select 'a'''; {p}; -- '",
    "select N'a'; {p}",
    "select x'41'; {p}",
    "{h} where a = 'x\\\\' -- '; {p}",
]
FRAGMENTS = [
    " ",
    "\n",
    ";",
    "'",
    '"',
    "`",
    "[",
    "]",
    "\\",
    "--",
    "-- ",
    "#",
    "/*",
    "*/",
    "/*!",
    "/*M!",
    "$$",
    "$q$",
    "E'",
    " delete from regions ",
    " drop table regions ",
    " select 1 ",
    " get_lock('x', 1) ",
]
