package io.pgrepl.client.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/ddl-capture.sql, for installing by hand, is the script {@code pgrepl ddl install} runs, byte for byte. */
class DdlCaptureScriptTest {
    @Test
    void theDocumentedScriptIsTheInstalledOne() throws Exception {
        String docs = Files.readString(Path.of("..", "docs", "ddl-capture.sql"));
        assertEquals(DdlCapture.installScript(), docs, "copy client/src/main/resources/io/pgrepl/client/schema/ddl-capture-install.sql"
                + " to docs/ddl-capture.sql");
        assertTrue(docs.contains("CREATE EVENT TRIGGER " + DdlCapture.DDL_COMMAND_END_TRIGGER));
        assertTrue(docs.contains("CREATE EVENT TRIGGER " + DdlCapture.SQL_DROP_TRIGGER));
        assertTrue(docs.contains("CREATE EVENT TRIGGER " + DdlCapture.DDL_COMMAND_START_TRIGGER));
        assertTrue(DdlCapture.uninstallScript().contains("DROP EVENT TRIGGER IF EXISTS " + DdlCapture.DDL_COMMAND_START_TRIGGER));
        assertTrue(DdlCapture.uninstallScript().contains("DROP EVENT TRIGGER IF EXISTS " + DdlCapture.SQL_DROP_TRIGGER));
    }
}
