package io.pgrepl.benchmarks.connect.soak;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/** The few Connect REST calls the soak makes, against whichever worker is asked (any forwards to the leader). */
final class ConnectRest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

    /** The connector's task 0 as the cluster sees it: state, worker id, first line of a failure's trace. */
    record TaskState(String state, String workerId, String trace) {}

    void putConfig(SoakWorker w, String connector, Map<String, String> config) throws Exception {
        HttpRequest put = HttpRequest.newBuilder(URI.create(w.url("/connectors/" + connector + "/config")))
                .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(config))).build();
        HttpResponse<String> r = http.send(put, HttpResponse.BodyHandlers.ofString());
        // The body echoes the config, password included: never printed.
        if (r.statusCode() / 100 != 2) throw new IllegalStateException("creating " + connector + ": HTTP " + r.statusCode());
    }

    /** Null while the status cannot be read (no task yet, a rebalance, the worker down). */
    TaskState task(SoakWorker w, String connector) {
        try {
            HttpRequest get = HttpRequest.newBuilder(URI.create(w.url("/connectors/" + connector + "/status")))
                    .timeout(Duration.ofSeconds(10)).build();
            HttpResponse<String> r = http.send(get, HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) return null;
            JsonNode tasks = JSON.readTree(r.body()).path("tasks");
            if (tasks.size() == 0) return null;
            JsonNode t = tasks.get(0);
            String trace = t.path("trace").asText("");
            int nl = trace.indexOf('\n');
            return new TaskState(t.path("state").asText(), t.path("worker_id").asText(), nl < 0 ? trace : trace.substring(0, nl));
        } catch (Exception e) {
            return null;
        }
    }

    void restartTask(SoakWorker w, String connector) throws Exception {
        HttpRequest post = HttpRequest.newBuilder(URI.create(w.url("/connectors/" + connector + "/tasks/0/restart")))
                .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.noBody()).build();
        http.send(post, HttpResponse.BodyHandlers.discarding());
    }
}
