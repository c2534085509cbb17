"""Per-database lists of built-in functions: read-only ones sqlglot does not model, and effects.

Each list is taken from the database's own function reference (PostgreSQL "Functions and
Operators" and "System Information Functions", ClickHouse "Regular/Aggregate/Table Functions",
MySQL "Functions and Operators", T-SQL "Functions", SQLite "Built-In Scalar SQL Functions", its
JSON1 and PRAGMA functions). A name is read-only when calling it only computes a value from its
arguments, the rows, or the session's and catalogue's current state: it changes no table, no
sequence, no lock, no setting and reaches no file, server or program outside the database.
Anything a reference lists with such an effect is in :data:`EFFECT_NAMES` instead, and
tests/sql/test_sql_functions.py calls each list's entries.
"""

from __future__ import annotations


def _names(text: str) -> frozenset[str]:
    return frozenset(text.lower().split())


_POSTGRES = _names(
    # JSON (9.16)
    """
    to_json to_jsonb array_to_json row_to_json json_build_array jsonb_build_array
    json_build_object jsonb_build_object json_object jsonb_object json_agg jsonb_agg
    json_object_agg jsonb_object_agg json_array_elements jsonb_array_elements
    json_array_elements_text jsonb_array_elements_text json_array_length jsonb_array_length
    json_each jsonb_each json_each_text jsonb_each_text json_extract_path jsonb_extract_path
    json_extract_path_text jsonb_extract_path_text json_object_keys jsonb_object_keys
    json_populate_record jsonb_populate_record json_populate_recordset jsonb_populate_recordset
    json_to_record jsonb_to_record json_to_recordset jsonb_to_recordset json_strip_nulls
    jsonb_strip_nulls jsonb_set jsonb_set_lax jsonb_insert jsonb_pretty json_typeof
    jsonb_typeof jsonb_path_exists jsonb_path_match jsonb_path_query jsonb_path_query_array
    jsonb_path_query_first json_scalar json_serialize
    """
    # date and time (9.9)
    """
    date_part date_trunc date_bin age clock_timestamp isfinite justify_days justify_hours
    justify_interval make_date make_interval make_time make_timestamp make_timestamptz
    statement_timestamp timeofday transaction_timestamp to_timestamp to_date to_char to_number
    """
    # strings (9.4, 9.7)
    """
    btrim bit_length char_length character_length chr concat concat_ws convert_from convert_to
    decode encode format initcap left lpad ltrim md5 normalize octet_length overlay
    parse_ident quote_ident quote_literal quote_nullable regexp_count regexp_instr regexp_like
    regexp_match regexp_matches regexp_replace regexp_split_to_array regexp_split_to_table
    regexp_substr repeat replace reverse right rpad rtrim split_part starts_with
    string_to_array string_to_table strpos substr to_ascii to_hex translate unistr sha224
    sha256 sha384 sha512 string_agg
    """
    # numbers, arrays, aggregates, set-returning (9.3, 9.19, 9.21, 9.25)
    """
    cbrt degrees div factorial gcd lcm log10 min_scale pi radians scale trim_scale
    width_bucket random_normal array_append array_cat array_dims array_fill array_length
    array_lower array_ndims array_position array_positions array_prepend array_remove
    array_replace array_sample array_shuffle array_to_string array_upper cardinality
    trim_array generate_subscripts bit_and bit_or bit_xor bool_and bool_or every any_value
    range_agg range_intersect_agg regr_avgx regr_avgy regr_count regr_intercept regr_r2
    regr_slope regr_sxx regr_sxy regr_syy num_nulls num_nonnulls gen_random_uuid
    """
    # session and catalogue information (9.26, 9.27.7 object sizes)
    """
    current_catalog current_database current_query current_role current_schema
    current_schemas current_user current_setting session_user inet_client_addr
    inet_client_port inet_server_addr inet_server_port pg_backend_pid pg_blocking_pids
    pg_conf_load_time pg_current_logfile pg_my_temp_schema pg_is_other_temp_schema
    pg_jit_available pg_listening_channels pg_postmaster_start_time pg_trigger_depth
    pg_is_in_recovery has_any_column_privilege has_column_privilege has_database_privilege
    has_foreign_data_wrapper_privilege has_function_privilege has_language_privilege
    has_parameter_privilege has_schema_privilege has_sequence_privilege has_server_privilege
    has_table_privilege has_tablespace_privilege has_type_privilege pg_has_role
    row_security_active pg_collation_is_visible pg_function_is_visible pg_table_is_visible
    pg_type_is_visible pg_opclass_is_visible format_type pg_get_constraintdef pg_get_expr
    pg_get_functiondef pg_get_function_arguments pg_get_function_result pg_get_indexdef
    pg_get_keywords pg_get_ruledef pg_get_serial_sequence pg_get_statisticsobjdef
    pg_get_triggerdef pg_get_userbyid pg_get_viewdef pg_typeof to_regclass to_regproc
    to_regtype to_regnamespace to_regrole col_description obj_description shobj_description
    pg_column_size pg_database_size pg_indexes_size pg_relation_size pg_size_bytes
    pg_size_pretty pg_table_size pg_tablespace_size pg_total_relation_size
    """
    # sequences and large objects: these only read (nextval, setval, lo_* writers do not)
    """
    currval lastval lo_get loread
    """
    # full-text search (9.13) and the everyday extensions pg_trgm and fuzzystrmatch
    """
    to_tsvector to_tsquery plainto_tsquery phraseto_tsquery websearch_to_tsquery ts_rank
    ts_rank_cd ts_headline setweight numnode querytree tsvector_to_array array_to_tsvector
    get_current_ts_config similarity word_similarity strict_word_similarity show_trgm
    levenshtein soundex difference metaphone dmetaphone
    """
    # network addresses (9.12)
    """
    host hostmask network netmask broadcast masklen inet_merge inet_same_family abbrev family
    """
)

# ClickHouse's aggregate functions, which also take the combinator suffixes below.
CLICKHOUSE_AGGREGATES = _names(
    """
    count sum avg min max any anylast anyheavy argmin argmax avgweighted uniq uniqexact
    uniqcombined uniqcombined64 uniqhll12 uniqtheta grouparray groupuniqarray
    grouparrayinsertat grouparraymovingsum grouparraymovingavg grouparraysample groupbitand
    groupbitor groupbitxor groupbitmap groupconcat quantile quantiles quantileexact
    quantilesexact quantiletiming quantiletdigest quantilestdigest quantiledeterministic
    median medianexact topk topkweighted summap minmap maxmap sumwithoverflow varpop varsamp
    stddevpop stddevsamp covarpop covarsamp corr entropy skewpop kurtpop
    simplelinearregression histogram sequencematch sequencecount windowfunnel retention
    deltasum first_value last_value any_value
    """
)
# -If, -Array, -State … (the "Aggregate Function Combinators" page); longest first.
CLICKHOUSE_COMBINATORS: tuple[str, ...] = (
    "simplestate",
    "mergestate",
    "ordefault",
    "distinct",
    "resample",
    "foreach",
    "ornull",
    "argmin",
    "argmax",
    "array",
    "state",
    "merge",
    "map",
    "if",
)

_CLICKHOUSE_TYPES = sorted(
    _names(
        "int8 int16 int32 int64 int128 int256 uint8 uint16 uint32 uint64 uint128 uint256 "
        "float32 float64 decimal32 decimal64 decimal128 decimal256 date date32 datetime "
        "datetime64 string fixedstring uuid ipv4 ipv6 bool"
    )
)

_CLICKHOUSE = (
    _names(
        # dates and times
        """
        toyear toquarter tomonth todayofyear todayofmonth todayofweek tohour tominute tosecond
        tounixtimestamp tostartofyear tostartofquarter tostartofmonth tostartofweek tomonday
        tostartofday tostartofhour tostartofminute tostartoffiveminutes
        tostartoffifteenminutes tostartofinterval toyyyymm toyyyymmdd toyyyymmddhhmmss
        toisoweek toisoyear toweek toyearweek torelativedaynum torelativemonthnum
        tolastdayofmonth totimezone now now64 today yesterday datediff date_diff dateadd
        datesub adddays addhours addminutes addseconds addweeks addmonths addquarters addyears
        subtractdays subtracthours subtractminutes subtractseconds subtractweeks
        subtractmonths subtractquarters subtractyears formatdatetime parsedatetimebesteffort
        parsedatetimebesteffortornull parsedatetime fromunixtimestamp timeslot timezone age
        """
        # conditions, strings, URLs
        """
        if multiif nullif ifnull coalesce assumenotnull isnull isnotnull empty notempty
        lowerutf8 upperutf8 substringutf8 lengthutf8 positioncaseinsensitive match extract
        extractall replaceall replaceone replaceregexpall replaceregexpone splitbychar
        splitbystring splitbyregexp trimleft trimright startswith endswith leftpad rightpad
        base64encode base64decode hex unhex tovalidutf8 domain domainwithoutwww topleveldomain
        protocol cutquerystring extracturlparameter format concat
        """
        # arrays, maps, tuples, JSON, hashes
        """
        array arrayjoin arraymap arrayfilter arrayexists arrayall arraysum arraycount
        arrayelement has hasall hasany indexof arrayconcat arrayslice arraysort
        arrayreversesort arraydistinct arrayenumerate arrayenumerateuniq arrayuniq arrayreduce
        arrayflatten arraycompact arrayzip arrayfirst arraylast arraycumsum arraydifference
        arrayintersect arraystringconcat range map mapkeys mapvalues tuple tupleelement
        untuple jsonextract jsonextractstring jsonextractint jsonextractuint jsonextractfloat
        jsonextractbool jsonextractraw jsonextractkeys jsonhas jsonlength
        visitparamextractstring simplejsonextractstring cityhash64 siphash64 md5 sha256
        xxhash64 murmurhash3_64 farmhash64
        """
        # numbers and everything else that only computes
        """
        intdiv intdivorzero modulo greatest least rand rand64 isfinite isnan totypename bar
        formatreadablesize formatreadablequantity runningdifference neighbor
        rownumberinallblocks hostname version currentdatabase currentuser uptime
        dictget dictgetordefault dictgetornull dicthas materialize ignore throwif
        generateuuidv4 bitmapcardinality getsetting
        """
        # table functions over local data only (url, file, remote, s3 … reach outside)
        """
        numbers numbers_mt zeros generaterandom values view merge
        """
    )
    | CLICKHOUSE_AGGREGATES
    | {f"to{kind}" for kind in _CLICKHOUSE_TYPES}
    | {f"to{kind}{tail}" for kind in _CLICKHOUSE_TYPES for tail in ("orzero", "ornull")}
)

_MYSQL = _names(
    """
    json_unquote json_length json_contains json_contains_path json_keys json_search
    json_depth json_type json_valid json_quote json_object json_array json_arrayagg
    json_objectagg json_merge_patch json_merge_preserve json_set json_insert json_replace
    json_remove json_pretty json_overlaps json_table json_value json_storage_size
    find_in_set field elt make_set export_set locate instr substring_index mid space strcmp
    soundex quote ord conv bin oct inet_aton inet_ntoa inet6_aton inet6_ntoa is_ipv4 is_ipv6
    timestampdiff timestampadd date_format str_to_date adddate subdate period_add
    period_diff yearweek weekday dayname monthname dayofweek dayofmonth dayofyear last_day
    makedate maketime sec_to_time time_to_sec to_days from_days to_seconds unix_timestamp
    from_unixtime convert_tz utc_date utc_time utc_timestamp sysdate curdate curtime
    timediff addtime subtime time_format get_format microsecond ifnull bit_count crc32 sha1
    sha2 user system_user uuid uuid_to_bin bin_to_uuid database schema version connection_id
    found_rows
    row_count last_insert_id charset collation coercibility is_free_lock is_used_lock any_value std
    format_bytes format_pico_time regexp_instr regexp_substr weight_string
    """
)

_TSQL = _names(
    """
    datepart datename dateadd datediff datediff_big datefromparts datetimefromparts
    datetime2fromparts timefromparts eomonth getdate getutcdate sysdatetime sysutcdatetime
    sysdatetimeoffset switchoffset todatetimeoffset datetrunc date_bucket isdate isnumeric
    isnull iif choose len datalength charindex patindex replicate stuff space str
    string_split quotename unicode nchar soundex difference try_cast try_convert parse
    try_parse square newid checksum binary_checksum hashbytes json_value json_query
    json_modify isjson openjson string_escape count_big grouping_id approx_count_distinct
    stdev stdevp var varp db_name db_id object_id object_name object_schema_name schema_name
    schema_id user_name suser_name suser_sname host_name app_name serverproperty
    databasepropertyex objectproperty columnproperty col_name col_length type_name type_id
    scope_identity ident_current formatmessage error_message error_number generate_series
    """
)

_SQLITE = _names(
    """
    julianday printf total date time datetime unixepoch strftime timediff iif ifnull instr
    hex unhex quote randomblob zeroblob char unicode likelihood likely unlikely soundex
    sqlite_version sqlite_source_id changes total_changes last_insert_rowid typeof
    group_concat octet_length json json_extract json_object json_array json_group_array
    json_group_object json_type json_valid json_quote json_insert json_replace json_set
    json_remove json_patch json_array_length json_each json_tree
    """
    # SQLite offers as table-valued functions only the pragmas that have no side effects
    """
    pragma_table_info pragma_table_xinfo pragma_table_list pragma_index_list
    pragma_index_info pragma_index_xinfo pragma_foreign_key_list pragma_foreign_key_check
    pragma_database_list pragma_collation_list pragma_function_list pragma_module_list
    pragma_pragma_list pragma_compile_options
    """
)

# Read-only built-ins sqlglot does not model, by the dialect whose reference lists them.
PURE_BUILTINS: dict[str, frozenset[str]] = {
    "postgres": _POSTGRES,
    "clickhouse": _CLICKHOUSE,
    "mysql": _MYSQL,
    "tsql": _TSQL,
    "sqlite": _SQLITE,
}

# Read-only when called without arguments, an effect with one: MySQL's LAST_INSERT_ID(expr)
# sets the value the session's next LAST_INSERT_ID() returns.
EFFECT_WITH_ARGUMENTS = _names("last_insert_id")

# Named in the references as acting outside the query's result; a write wherever they appear,
# even where sqlglot models the name as a typed function.
EFFECT_NAMES = _names(
    # PostgreSQL: sequences, settings, locks, signals, server files, large-object writers,
    # replication and statistics resets, other servers, dynamic SQL
    """
    nextval setval set_config setseed txid_current pg_current_xact_id pg_sleep pg_sleep_for
    pg_sleep_until pg_notify pg_read_file pg_read_binary_file pg_ls_dir pg_stat_file
    pg_terminate_backend pg_cancel_backend pg_reload_conf pg_rotate_logfile pg_switch_wal
    pg_create_restore_point pg_logical_emit_message pg_create_physical_replication_slot
    pg_create_logical_replication_slot pg_drop_replication_slot pg_stat_reset
    pg_stat_statements_reset pg_export_snapshot pg_promote pg_backup_start pg_file_write
    pg_advisory_lock pg_advisory_lock_shared pg_advisory_xact_lock pg_try_advisory_lock
    pg_try_advisory_xact_lock pg_advisory_unlock pg_advisory_unlock_all lo_import lo_export
    lo_create lo_creat lo_from_bytea lo_put lo_truncate lo_truncate64 lo_unlink lowrite lo_open
    dblink dblink_exec dblink_connect dblink_send_query query_to_xml cursor_to_xml
    """
    # MySQL: locks, waits, server files
    """
    get_lock release_lock release_all_locks sleep benchmark load_file
    master_pos_wait source_pos_wait wait_for_executed_gtid_set
    """
    # SQLite: extensions and files (the CLI's functions)
    """
    load_extension writefile readfile edit fts3_tokenizer
    """
    # ClickHouse: table functions that reach files, URLs, other servers or programs
    """
    url urlcluster file filecluster remote remotesecure cluster clusterallreplicas s3
    s3cluster gcs azureblobstorage hdfs mysql postgresql jdbc odbc mongodb redis sqlite
    executable input iceberg deltalake hudi sleepeachrow
    """
    # T-SQL: other servers and files; BigQuery: another connection's SQL
    """
    openrowset opendatasource openquery external_query try_to_file
    """
)
