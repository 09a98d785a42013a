package dev.parley.runtime;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.internal.wire.McpNames.Methods;
import dev.parley.runtime.internal.wire.Mrtr.InputRequest;
import java.util.Objects;

/**
 * A {@code sampling/createMessage} input request: the client's model answers a prompt.
 *
 * @deprecated Sampling is deprecated in MCP 2026-07-28 (call a model provider directly); it
 *     still works and logs a warning once when used.
 */
@Deprecated
public record SamplingRequest(ObjectNode params) implements InputQuestion {

    public SamplingRequest {
        Objects.requireNonNull(params, "params");
    }

    /** One user text message, answered with at most {@code maxTokens} tokens. */
    public static SamplingRequest userText(String text, int maxTokens) {
        ObjectNode params = Json.object();
        ObjectNode message = params.putArray("messages").addObject().put("role", "user");
        message.putObject("content").put("type", "text").put("text", text);
        params.put("maxTokens", maxTokens);
        return new SamplingRequest(params);
    }

    @Override
    public InputRequest toInputRequest() {
        return new InputRequest(Methods.SAMPLING_CREATE_MESSAGE, params);
    }

    @Override
    public boolean supportedBy(ClientCapabilities capabilities) {
        return capabilities.sampling();
    }

    @Override
    public ObjectNode requiredCapability() {
        ObjectNode required = Json.object();
        required.putObject("sampling");
        return required;
    }
}
