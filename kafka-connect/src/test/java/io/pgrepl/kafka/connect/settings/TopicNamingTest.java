package io.pgrepl.kafka.connect.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.debezium.relational.TableId;
import io.debezium.spi.topic.TopicNamingStrategy;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** Topic names against Debezium 3.6.1's own naming strategies. */
class TopicNamingTest {
    @Test
    void topicsAreDebeziums() throws Exception {
        List<String[]> tables = List.of(new String[] {"public", "Order Items"}, new String[] {"My Schema", "t.x"},
                new String[] {"public", "ünï_c"}, new String[] {"public", "a/b$c😀"}, new String[] {"s-1", "plain_name"});
        for (String strategy : List.of(TopicNaming.SCHEMA, TopicNaming.SCHEMA_UNICODE)) {
            for (String delimiter : List.of(".", "_", "-x-")) {
                Properties p = new Properties();
                p.put("topic.prefix", "pfx");
                p.put("topic.delimiter", delimiter);
                @SuppressWarnings("unchecked")
                TopicNamingStrategy<TableId> theirs = (TopicNamingStrategy<TableId>) Class.forName(strategy)
                        .getConstructor(Properties.class).newInstance(p);
                TopicNaming ours = new TopicNaming(strategy.equals(TopicNaming.SCHEMA_UNICODE), delimiter);
                for (String[] t : tables) {
                    assertEquals(theirs.dataChangeTopic(new TableId(null, t[0], t[1])), ours.table("pfx", t[0], t[1]),
                            strategy + " " + delimiter + " " + t[1]);
                }
                assertEquals(theirs.heartbeatTopic(), ours.heartbeat("pfx"), strategy + " " + delimiter);
            }
        }
    }
}
