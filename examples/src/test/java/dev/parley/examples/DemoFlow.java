package dev.parley.examples;

import static dev.parley.testing.McpTestClient.accept;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient;
import dev.parley.testing.McpTestClient.Reply;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One client flow against the demo, for the tests that stop the server under load: a one-round
 * MRTR call (release, invoice) or a task with an approval (report). It keeps what the server
 * acknowledged (a requestState or a taskId), so it goes on from there after a restart.
 */
final class DemoFlow {
    /** How the flow sends one request: {@link McpTestClient#send}, or a recording wrapper around it. */
    interface Exchange {
        Reply send(McpTestClient client, ObjectNode message);
    }

    /** A 503 (the server refused before doing any work): the flow stays where it was. */
    static final class Refused extends RuntimeException {
        final transient Reply reply;

        Refused(Reply reply) {
            super("503: " + reply.body());
            this.reply = reply;
        }
    }

    final String kind;
    final String name;
    private ObjectNode first;
    private String requestState;
    private String taskId;
    private boolean approved;
    private String result;

    DemoFlow(String kind, String name) {
        this.kind = kind;
        this.name = name;
    }

    boolean acknowledged() {
        return requestState != null || taskId != null;
    }

    boolean done() {
        return result != null;
    }

    /**
     * One request further. An exception from {@code exchange} (the server is gone) or a
     * {@link Refused} leaves the flow where it was; a reply the flow does not expect fails.
     */
    void advance(McpTestClient client, Exchange exchange) {
        switch (kind) {
            case "release", "invoice" -> advanceRound(client, exchange);
            default -> advanceTask(client, exchange);
        }
    }

    private static Reply send(McpTestClient client, Exchange exchange, ObjectNode message) {
        Reply reply = exchange.send(client, message);
        if (reply.status() == 503) {
            throw new Refused(reply);
        }
        return reply;
    }

    private void advanceRound(McpTestClient client, Exchange exchange) {
        if (requestState == null) {
            ObjectNode call = kind.equals("release")
                    ? client.toolCall("schedule_release", Json.object().put("service", name))
                    : client.toolCall(
                            "create_invoice", Json.object().put("client", name).put("amount", 10));
            Reply reply = send(client, exchange, call);
            assertEquals("input_required", reply.resultType(), reply::body);
            first = call;
            requestState = reply.requestState();
            return;
        }
        ObjectNode answer = kind.equals("release")
                ? accept("window", Json.object().put("window", "2027-02-01T10:00:00Z"))
                : accept("currency", Json.object().put("currency", "CHF"));
        Reply reply = send(client, exchange, client.retry(first, requestState, answer));
        assertEquals("complete", reply.resultType(), reply::body);
        result = reply.text();
    }

    private void advanceTask(McpTestClient client, Exchange exchange) {
        if (taskId == null) {
            Reply reply = send(
                    client,
                    exchange,
                    client.toolCall("publish_report", Json.object().put("title", name), McpTestClient.WITH_TASKS));
            assertEquals("task", reply.resultType(), reply::body);
            taskId = reply.taskId();
            return;
        }
        Reply polled = send(client, exchange, client.taskRequest("tasks/get", taskId));
        JsonNode task = polled.result();
        switch (task.path("status").asText()) {
            case "input_required" -> {
                if (!approved || task.path("inputRequests").has("approval")) {
                    Reply updated = send(
                            client,
                            exchange,
                            client.taskUpdate(
                                    taskId, accept("approval", Json.object().put("channel", "website"))));
                    assertEquals(200, updated.status(), updated::body);
                    approved = true;
                }
            }
            case "completed" ->
                result =
                        task.path("result").path("content").path(0).path("text").asText();
            case "working" -> pause(100);
            default -> fail("task " + taskId + " ended " + task);
        }
    }

    /** Drives each flow of {@code acknowledged} to its end on {@code process}, within {@code limitMillis}. */
    static void completeAll(List<DemoFlow> acknowledged, DemoProcess process, long limitMillis) {
        McpTestClient client = new McpTestClient(process.port());
        long deadline = System.currentTimeMillis() + limitMillis;
        for (DemoFlow flow : acknowledged) {
            while (!flow.done()) {
                if (System.currentTimeMillis() > deadline) {
                    fail("flow " + flow.name + " did not complete; server output:\n" + process.output());
                }
                flow.advance(client, McpTestClient::send);
            }
        }
    }

    /** How many effects of each flow ("kind name") the ledger holds. */
    static Map<String, Integer> effectsPerFlow(DemoLedger ledger) {
        Map<String, Integer> effects = new HashMap<>();
        for (DemoLedger.Entry entry : ledger.entries()) {
            // release: [id, service, window]; invoice: [id, client, ...]; report: [id, channel, title]
            String flowName = entry.kind().equals("report")
                    ? entry.fields().get(2)
                    : entry.fields().get(1);
            effects.merge(entry.kind() + " " + flowName, 1, Integer::sum);
        }
        return effects;
    }

    /** This flow's key in {@link #effectsPerFlow}. */
    String effectKey() {
        return kind + " " + name;
    }

    static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
