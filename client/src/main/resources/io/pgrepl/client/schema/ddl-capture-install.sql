-- pgrepl DDL capture, format version 1 (docs/schema-changes.md).
-- Event triggers on ddl_command_end and sql_drop that write one transactional logical message
-- (prefix 'pgrepl.ddl', JSON) per table or column a DDL statement created, altered or dropped, in
-- the statement's own transaction, so a pgoutput stream opened with messages 'true'
-- (PostgreSQL 14+) receives it right before the Relation of the table's next row; and one on
-- ddl_command_start for CREATE TABLE AS and SELECT INTO, whose rows come before ddl_command_end.
-- Run as a superuser in every database whose tables are streamed; running it again replaces it.
-- A failure while reading the catalog is turned into a WARNING: the statement goes on without its message.

CREATE SCHEMA IF NOT EXISTS pgrepl;

-- The table as the catalog has it now: columns with type, NOT NULL, default; primary key; replica identity.
CREATE OR REPLACE FUNCTION pgrepl.ddl_table(rel oid) RETURNS json
LANGUAGE sql STABLE SET search_path = pg_catalog AS $fn$
  SELECT json_build_object(
      'schema', n.nspname, 'name', c.relname, 'kind', c.relkind::text,
      'replica_identity', c.relreplident::text,
      'columns', COALESCE((
          SELECT json_agg(json_build_object(
                     'attnum', a.attnum, 'name', a.attname,
                     'type', format_type(a.atttypid, a.atttypmod),
                     'type_oid', a.atttypid::int8, 'typmod', a.atttypmod, 'not_null', a.attnotnull,
                     'default', pg_get_expr(d.adbin, d.adrelid),
                     -- attgenerated exists from PostgreSQL 12: read through the row's JSON.
                     'generated', COALESCE(row_to_json(a)->>'attgenerated', '') NOT IN ('', ' '))
                     ORDER BY a.attnum)
          FROM pg_attribute a
          LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
          WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '[]'::json),
      'primary_key', COALESCE((
          SELECT json_agg(a.attname ORDER BY k.ord)
          FROM pg_index i
          CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
          JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
          WHERE i.indrelid = c.oid AND i.indisprimary), '[]'::json))
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE c.oid = rel
$fn$;

-- The publications that include the table: FOR ALL TABLES, listed, through a partition ancestor
-- (12+), or through its schema (15+).
CREATE OR REPLACE FUNCTION pgrepl.ddl_publications(rel oid) RETURNS json
LANGUAGE plpgsql STABLE SET search_path = pg_catalog AS $fn$
DECLARE
  version int := current_setting('server_version_num')::int;
  rels oid[] := ARRAY[rel];
  result json;
BEGIN
  IF version >= 120000 THEN
    EXECUTE 'SELECT array_agg(relid) FROM pg_catalog.pg_partition_ancestors($1)' INTO rels USING rel;
  END IF;
  IF version >= 150000 THEN
    EXECUTE 'SELECT json_agg(DISTINCT p.pubname::text) FROM pg_catalog.pg_publication p'
         || ' WHERE p.puballtables'
         || ' OR EXISTS (SELECT 1 FROM pg_catalog.pg_publication_rel r WHERE r.prpubid = p.oid AND r.prrelid = ANY ($1))'
         || ' OR EXISTS (SELECT 1 FROM pg_catalog.pg_publication_namespace s JOIN pg_catalog.pg_class c'
         || '            ON c.relnamespace = s.pnnspid WHERE s.pnpubid = p.oid AND c.oid = ANY ($1))'
      INTO result USING rels;
  ELSE
    SELECT json_agg(DISTINCT p.pubname::text) INTO result FROM pg_publication p
     WHERE p.puballtables
        OR EXISTS (SELECT 1 FROM pg_publication_rel r WHERE r.prpubid = p.oid AND r.prrelid = ANY (rels));
  END IF;
  RETURN COALESCE(result, '[]'::json);
END
$fn$;

-- The query text goes into the first message of each query string only: a migration script sent as
-- one string would otherwise be written to WAL once per statement in it. NULL: sent already.
-- The mark is transaction-local, so a rollback to a savepoint also forgets that it was sent.
CREATE OR REPLACE FUNCTION pgrepl.ddl_query() RETURNS text
LANGUAGE plpgsql SET search_path = pg_catalog AS $fn$
DECLARE
  mark text := statement_timestamp()::text;
BEGIN
  IF current_setting('pgrepl.ddl_query_sent', true) IS NOT DISTINCT FROM mark THEN
    RETURN NULL;
  END IF;
  PERFORM set_config('pgrepl.ddl_query_sent', mark, true);
  RETURN current_query();
END
$fn$;

-- Emits the messages in the statement's own (sub)transaction, not in the exception block's: a
-- transactional message is queued at the end of its WAL record, the position where the next
-- record starts, so a message in a subtransaction of its own could be decoded after the change
-- that follows it. The empty message after them ends that tie for the last one; readers skip it.
CREATE OR REPLACE FUNCTION pgrepl.ddl_emit(bodies text[]) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog AS $fn$
DECLARE
  body text;
BEGIN
  IF cardinality(bodies) = 0 THEN
    RETURN;
  END IF;
  FOREACH body IN ARRAY bodies LOOP
    PERFORM pg_logical_emit_message(true, 'pgrepl.ddl', body);
  END LOOP;
  PERFORM pg_logical_emit_message(true, 'pgrepl.ddl', '');
END
$fn$;

-- CREATE TABLE AS and SELECT INTO write the new table's rows before ddl_command_end fires: this
-- message, written when the statement starts, reaches the stream before them, so the stream can
-- report the table created at its first Relation. It carries the query text for the statement's
-- later message.
CREATE OR REPLACE FUNCTION pgrepl.ddl_command_start() RETURNS event_trigger
LANGUAGE plpgsql SET search_path = pg_catalog AS $fn$
DECLARE
  query text := pgrepl.ddl_query();
BEGIN
  PERFORM pgrepl.ddl_emit(ARRAY[json_build_object('v', 1, 'event', 'ddl_command_start', 'tag', tg_tag,
      'query', query, 'same_query', query IS NULL)::text]);
END
$fn$;

CREATE OR REPLACE FUNCTION pgrepl.ddl_command_end() RETURNS event_trigger
LANGUAGE plpgsql SET search_path = pg_catalog AS $fn$
DECLARE
  cmd record;
  query text;
  bodies text[] := '{}';
BEGIN
  BEGIN
    FOR cmd IN
      SELECT e.command_tag, e.object_type, e.schema_name, e.object_identity, e.objid, e.objsubid,
             c.relname, a.attname
      FROM pg_event_trigger_ddl_commands() e
      JOIN pg_class c ON c.oid = e.objid
      LEFT JOIN pg_attribute a ON a.attrelid = e.objid AND a.attnum = e.objsubid AND e.objsubid > 0
      WHERE e.object_type IN ('table', 'table column') AND c.relpersistence = 'p'
    LOOP
      query := pgrepl.ddl_query();
      bodies := bodies || json_build_object(
          'v', 1, 'event', 'ddl_command_end', 'tag', cmd.command_tag, 'object_type', cmd.object_type,
          'schema', cmd.schema_name, 'name', cmd.relname, 'identity', cmd.object_identity,
          'oid', cmd.objid::int8, 'attnum', cmd.objsubid, 'column', cmd.attname,
          'table', pgrepl.ddl_table(cmd.objid), 'publications', pgrepl.ddl_publications(cmd.objid),
          'query', query, 'same_query', query IS NULL)::text;
    END LOOP;
  EXCEPTION WHEN OTHERS THEN
    RAISE WARNING 'pgrepl DDL capture: % (SQLSTATE %); the statement goes on without its pgrepl.ddl message',
        SQLERRM, SQLSTATE;
    bodies := '{}';
  END;
  PERFORM pgrepl.ddl_emit(bodies);
END
$fn$;

CREATE OR REPLACE FUNCTION pgrepl.ddl_sql_drop() RETURNS event_trigger
LANGUAGE plpgsql SET search_path = pg_catalog AS $fn$
DECLARE
  obj record;
  pubs json;
  query text;
  bodies text[] := '{}';
BEGIN
  BEGIN
    FOR obj IN
      SELECT d.object_type, d.schema_name, d.object_identity, d.objid, d.objsubid, d.address_names
      FROM pg_event_trigger_dropped_objects() d
      WHERE d.object_type IN ('table', 'table column') AND d.schema_name NOT LIKE 'pg\_temp\_%'
    LOOP
      IF obj.object_type = 'table' THEN
        -- The table is gone from the catalog: its listed publications are among the dropped objects.
        SELECT json_agg(DISTINCT x) INTO pubs FROM (
            SELECT r.address_args[1] AS x FROM pg_event_trigger_dropped_objects() r
             WHERE r.object_type = 'publication relation' AND r.address_names = obj.address_names
            UNION ALL
            SELECT p.pubname::text FROM pg_publication p WHERE p.puballtables) s;
        pubs := COALESCE(pubs, '[]'::json);
      ELSE
        pubs := pgrepl.ddl_publications(obj.objid);
      END IF;
      query := pgrepl.ddl_query();
      bodies := bodies || json_build_object(
          'v', 1, 'event', 'sql_drop', 'tag', tg_tag, 'object_type', obj.object_type,
          'schema', obj.schema_name, 'name', obj.address_names[2], 'identity', obj.object_identity,
          'oid', obj.objid::int8, 'attnum', obj.objsubid,
          'column', CASE WHEN obj.object_type = 'table column' THEN obj.address_names[3] END,
          'publications', pubs, 'query', query, 'same_query', query IS NULL)::text;
    END LOOP;
  EXCEPTION WHEN OTHERS THEN
    RAISE WARNING 'pgrepl DDL capture: % (SQLSTATE %); the statement goes on without its pgrepl.ddl message',
        SQLERRM, SQLSTATE;
    bodies := '{}';
  END;
  PERFORM pgrepl.ddl_emit(bodies);
END
$fn$;

DROP EVENT TRIGGER IF EXISTS pgrepl_ddl_command_start;
DROP EVENT TRIGGER IF EXISTS pgrepl_ddl_command_end;
DROP EVENT TRIGGER IF EXISTS pgrepl_sql_drop;
CREATE EVENT TRIGGER pgrepl_ddl_command_start ON ddl_command_start WHEN TAG IN ('CREATE TABLE AS', 'SELECT INTO')
  EXECUTE PROCEDURE pgrepl.ddl_command_start();
CREATE EVENT TRIGGER pgrepl_ddl_command_end ON ddl_command_end EXECUTE PROCEDURE pgrepl.ddl_command_end();
CREATE EVENT TRIGGER pgrepl_sql_drop ON sql_drop EXECUTE PROCEDURE pgrepl.ddl_sql_drop();
