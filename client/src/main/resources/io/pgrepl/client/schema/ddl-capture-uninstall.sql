-- Removes pgrepl DDL capture (docs/schema-changes.md); the schema pgrepl goes too when nothing else is in it.
DROP EVENT TRIGGER IF EXISTS pgrepl_ddl_command_start;
DROP EVENT TRIGGER IF EXISTS pgrepl_ddl_command_end;
DROP EVENT TRIGGER IF EXISTS pgrepl_sql_drop;
DROP FUNCTION IF EXISTS pgrepl.ddl_command_start();
DROP FUNCTION IF EXISTS pgrepl.ddl_command_end();
DROP FUNCTION IF EXISTS pgrepl.ddl_sql_drop();
DROP FUNCTION IF EXISTS pgrepl.ddl_emit(text[]);
DROP FUNCTION IF EXISTS pgrepl.ddl_query();
DROP FUNCTION IF EXISTS pgrepl.ddl_publications(oid);
DROP FUNCTION IF EXISTS pgrepl.ddl_table(oid);
DO $do$
BEGIN
  DROP SCHEMA IF EXISTS pgrepl;
EXCEPTION WHEN dependent_objects_still_exist THEN
  RAISE NOTICE 'schema pgrepl kept: other objects are in it';
END
$do$;
