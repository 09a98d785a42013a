package dev.parley.runtime;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.internal.wire.McpNames.Methods;
import dev.parley.runtime.internal.wire.Mrtr.InputRequest;

/**
 * A {@code roots/list} input request.
 *
 * @deprecated Roots are deprecated in MCP 2026-07-28 (pass paths as arguments); they still work
 *     and log a warning once when used.
 */
@Deprecated
public record RootsRequest() implements InputQuestion {

    @Override
    public InputRequest toInputRequest() {
        return new InputRequest(Methods.ROOTS_LIST, Json.object());
    }

    @Override
    public boolean supportedBy(ClientCapabilities capabilities) {
        return capabilities.roots();
    }

    @Override
    public ObjectNode requiredCapability() {
        ObjectNode required = Json.object();
        required.putObject("roots");
        return required;
    }
}
