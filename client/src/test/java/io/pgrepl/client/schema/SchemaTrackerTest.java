package io.pgrepl.client.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.pgoutput.RelationInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The tracker's rules on literal shapes and literal DDL capture messages (the messages are in the
 * form the script writes; SchemaChangeScriptTest checks them against a real server).
 */
class SchemaTrackerTest {
    private static final int T = 16390;

    private static ColumnInfo key(String name, int type) {
        return new ColumnInfo(ColumnInfo.FLAG_KEY, name, type, -1);
    }

    private static ColumnInfo col(String name, int type, int typmod) {
        return new ColumnInfo(0, name, type, typmod);
    }

    private static RelationInfo rel(String ns, String name, char ident, ColumnInfo... cols) {
        return new RelationInfo(T, ns, name, ident, List.of(cols));
    }

    private static String ddl(String event, String tag, String type, int attnum, String column, String query, boolean same) {
        return "{\"v\" : 1, \"event\" : \"" + event + "\", \"tag\" : \"" + tag + "\", \"object_type\" : \"" + type
                + "\", \"schema\" : \"public\", \"name\" : \"Items\", \"identity\" : \"public.\\\"Items\\\"\", \"oid\" : " + T
                + ", \"attnum\" : " + attnum + ", \"column\" : " + (column == null ? "null" : "\"" + column + "\"")
                + ", \"publications\" : [\"pub\"], \"query\" : " + (query == null ? "null" : "\"" + query + "\"")
                + ", \"same_query\" : " + same + "}";
    }

    @Test
    void firstRelationIsFirstSeenAndARepeatIsNothing() {
        SchemaTracker t = new SchemaTracker(List.of("pub"));
        RelationInfo r = rel("public", "Items", 'd', key("id", 23), col("qty", 1700, 655366));
        SchemaChange c = t.relation(r);
        assertEquals(SchemaChange.Kind.FIRST_SEEN, c.kind());
        assertNull(c.before());
        assertEquals(r, c.after());
        assertNull(t.relation(rel("public", "Items", 'd', key("id", 23), col("qty", 1700, 655366))), "an equal Relation tells nothing");
        t.newConnection();
        assertNull(t.relation(r), "nor after a reconnect");
    }

    @Test
    void seededShapeIsNotAnnouncedAgain() {
        SchemaTracker t = new SchemaTracker(List.of("pub"));
        RelationInfo r = rel("public", "Items", 'd', key("id", 23));
        t.seed(r);
        assertNull(t.relation(r));
    }

    @Test
    void withoutDdlARenameIsADropAndAnAdd() {
        SchemaTracker t = new SchemaTracker(List.of("pub"));
        t.relation(rel("public", "Items", 'd', key("id", 23), col("a", 25, -1), col("b", 1043, 24)));
        SchemaChange c = t.relation(rel("public", "Items", 'd', key("id", 23), col("a", 25, -1), col("bb", 1043, 24)));
        assertEquals(SchemaChange.Kind.ALTER, c.kind());
        assertEquals(List.of(col("bb", 1043, 24)), c.added());
        assertEquals(List.of(col("b", 1043, 24)), c.dropped());
        assertTrue(c.renamed().isEmpty());
        assertTrue(c.shapeChanged());
        assertFalse(c.keyChanged());
    }

    @Test
    void capturedRenameIsARename() {
        SchemaTracker t = new SchemaTracker(List.of("pub"));
        t.relation(rel("public", "Items", 'd', key("id", 23), col("a", 25, -1), col("b", 1043, 24), col("c", 23, -1)));
        assertNull(t.ddl(ddl("ddl_command_end", "ALTER TABLE", "table column", 3, "x", "ALTER TABLE \\\"Items\\\" RENAME b TO x", false)));
        // a second statement of the same query string leaves its text out
        assertNull(t.ddl(ddl("ddl_command_end", "ALTER TABLE", "table", 0, null, null, true)));
        SchemaChange c = t.relation(rel("public", "Items", 'd', key("id", 23), col("a", 25, -1), col("x", 1043, 50), col("c", 23, -1),
                col("d", 16, -1)));
        assertEquals(List.of(new ColumnChange(col("b", 1043, 24), col("x", 1043, 50))), c.renamed());
        assertEquals(List.of(new ColumnChange(col("b", 1043, 24), col("x", 1043, 50))), c.retyped());
        assertEquals(List.of(col("d", 16, -1)), c.added());
        assertTrue(c.dropped().isEmpty());
        assertEquals(2, c.ddl().size());
        assertEquals("ALTER TABLE \"Items\" RENAME b TO x", c.ddl().get(1).query(), "the text of the first message of the query string");
        assertNull(t.relation(rel("public", "Items", 'd', key("id", 23), col("a", 25, -1), col("x", 1043, 50), col("c", 23, -1),
                col("d", 16, -1))), "the DDL was joined once");
    }

    @Test
    void capturedDropAndReAddUnderTheSameNameIsADropAndAnAdd() {
        SchemaTracker t = new SchemaTracker(List.of("pub"));
        t.relation(rel("public", "Items", 'd', key("id", 23), col("a", 25, -1), col("b", 23, -1)));
        t.ddl(ddl("sql_drop", "ALTER TABLE", "table column", 2, "a", "ALTER TABLE i DROP a", false));
        t.ddl(ddl("ddl_command_end", "ALTER TABLE", "table", 0, null, "ALTER TABLE i ADD a text", false));
        SchemaChange c = t.relation(rel("public", "Items", 'd', key("id", 23), col("b", 23, -1), col("a", 25, -1)));
        assertEquals(List.of(col("a", 25, -1)), c.dropped());
        assertEquals(List.of(col("a", 25, -1)), c.added());
        assertTrue(c.columnsReordered());
    }

    @Test
    void keyReplicaIdentityNameAndSchema() {
        SchemaTracker t = new SchemaTracker(List.of());
        t.relation(rel("public", "Items", 'd', key("id", 23), col("a", 25, -1)));
        SchemaChange c = t.relation(rel("archive", "Items2", 'f', key("id", 23), key("a", 25)));
        assertTrue(c.keyChanged());
        assertTrue(c.replicaIdentityChanged());
        assertTrue(c.tableRenamed());
        assertTrue(c.schemaMoved());
        assertEquals("archive", c.schema());
        assertEquals("Items2", c.table());
    }

    @Test
    void createAndDropComeWithTheirMessage() {
        SchemaTracker t = new SchemaTracker(List.of("pub"));
        SchemaChange create = t.ddl(ddl("ddl_command_end", "CREATE TABLE", "table", 0, null, "CREATE TABLE \\\"Items\\\" (id int)", false)
                .replace("\"publications\"", "\"table\" : {\"schema\" : \"public\", \"name\" : \"Items\", \"kind\" : \"r\","
                        + " \"replica_identity\" : \"d\", \"columns\" : [{\"attnum\" : 1, \"name\" : \"id\", \"type\" : \"integer\","
                        + " \"type_oid\" : 23, \"typmod\" : -1, \"not_null\" : true, \"default\" : null, \"generated\" : false}],"
                        + " \"primary_key\" : [\"id\"]}, \"publications\""));
        assertNotNull(create);
        assertEquals(SchemaChange.Kind.CREATE, create.kind());
        assertEquals("Items", create.table());
        assertEquals("integer", create.ddl().get(0).table().columns().get(0).type());
        assertEquals(SchemaChange.Kind.FIRST_SEEN, t.relation(rel("public", "Items", 'd', key("id", 23))).kind());
        t.ddl(ddl("ddl_command_end", "ALTER TABLE", "table", 0, null, "ALTER TABLE i ADD x int", false));
        SchemaChange drop = t.ddl(ddl("sql_drop", "DROP TABLE", "table", 0, null, "DROP TABLE \\\"Items\\\"", false));
        assertEquals(SchemaChange.Kind.DROP, drop.kind());
        assertEquals(2, drop.ddl().size(), "the ALTER no Relation followed comes with the DROP");
        assertEquals("Items", drop.table());
        assertNull(t.shape(T));
    }

    @Test
    void ddlOfOtherPublicationsIsIgnored() {
        SchemaTracker t = new SchemaTracker(List.of("other"));
        assertNull(t.ddl(ddl("ddl_command_end", "CREATE TABLE", "table", 0, null, "CREATE TABLE x (id int)", false)));
        assertNull(t.ddl(ddl("sql_drop", "DROP TABLE", "table", 0, null, "DROP TABLE x", false)));
    }

    @Test
    void malformedMessagesAreSkipped() {
        SchemaTracker t = new SchemaTracker(List.of());
        assertNull(t.ddl("not json"));
        assertNull(t.ddl("{\"v\" : 2}"));
        assertNull(t.ddl("{\"v\" : 1, \"event\" : \"ddl_command_end\"}"));
    }

    @Test
    void streamedTransactionsKeepTheirOwnShapes() {
        SchemaTracker t = new SchemaTracker(List.of());
        RelationInfo v1 = rel("public", "Items", 'd', key("id", 23));
        RelationInfo v2 = rel("public", "Items", 'd', key("id", 23), col("n", 23, -1));
        t.relation(v1);
        t.streamStart(700);
        assertEquals(SchemaChange.Kind.ALTER, t.relation(v2).kind());
        t.streamStop();
        assertNull(t.relation(v1), "a committed transaction in between still has the old shape");
        t.streamStart(700);
        assertNull(t.relation(v2), "the streamed one already told its shape");
        t.streamStop();
        t.streamCommit(700);
        assertNull(t.relation(v2), "committed: its shape is everyone's");
        t.streamStart(701);
        assertEquals(SchemaChange.Kind.ALTER, t.relation(v1).kind());
        t.streamStop();
        t.streamAbort(701);
        assertNull(t.relation(v2), "aborted: forgotten");
    }
}
