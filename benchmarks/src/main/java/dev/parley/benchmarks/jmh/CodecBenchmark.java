package dev.parley.benchmarks.jmh;

import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import dev.parley.runtime.internal.wire.JsonRpc;
import dev.parley.runtime.internal.wire.JsonRpc.Response;
import java.nio.charset.StandardCharsets;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The JSON-RPC codec on the one-round path: {@link JsonRpc#parse} of a 2026-07-28
 * {@code tools/call} (with its {@code _meta}), and {@link Json#MAPPER} writing a
 * {@code CallToolResult} response, alone and together.
 */
@State(Scope.Benchmark)
public class CodecBenchmark extends ParleyBenchmark {
    static final byte[] REQUEST = ("{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"tools/call\",\"params\":{"
                    + "\"name\":\"check_availability\",\"arguments\":{\"date\":\"2026-12-20\"},"
                    + "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                    + "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{\"form\":{},\"url\":{}}}}}}")
            .getBytes(StandardCharsets.UTF_8);

    private final ObjectNode result = callResult();
    private final IntNode id = IntNode.valueOf(42);

    static ObjectNode callResult() {
        ObjectNode result = Json.object().put("resultType", "complete");
        result.putArray("content").addObject().put("type", "text").put("text", "The venue is free on 2026-12-20.");
        return result;
    }

    @Benchmark
    public JsonRpc.Message parseRequest() {
        return JsonRpc.parse(REQUEST);
    }

    @Benchmark
    public byte[] writeResponse() throws Exception {
        return Json.MAPPER.writeValueAsBytes(Response.result(id, result));
    }

    /** What the bare baseline route does per request, minus HTTP. */
    @Benchmark
    public byte[] parseAndWrite() throws Exception {
        JsonRpc.Message message = JsonRpc.parse(REQUEST);
        return Json.MAPPER.writeValueAsBytes(Response.result(message.id(), result));
    }
}
