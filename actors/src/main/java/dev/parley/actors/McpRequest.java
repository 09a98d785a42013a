package dev.parley.actors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.ClientCapabilities;
import dev.parley.runtime.LogLevel;
import dev.parley.runtime.json.Json;
import dev.parley.runtime.wire.ErrorCodes;
import dev.parley.runtime.wire.JsonRpc;
import dev.parley.runtime.wire.Lifecycle;
import dev.parley.runtime.wire.McpException;

/**
 * A request that passed the stateless gate: it names a supported protocol version and declares
 * its client capabilities in {@code params._meta} (spec §5.1). Transport independent.
 */
public record McpRequest(
    JsonNode id, String method, ObjectNode params, String protocolVersion, ClientCapabilities capabilities,
    String principal, JsonNode progressToken, LogLevel logLevel) {

  /** Applies the gate: -32602 for missing {@code _meta} keys, -32022 for an unsupported version. */
  public static McpRequest from(JsonRpc.Message message, String principal) {
    JsonNode meta = message.params().get("_meta");
    if (meta == null || !meta.isObject()) {
      throw McpException.invalidParams("Missing params._meta with " + Lifecycle.META_PROTOCOL_VERSION
          + " and " + Lifecycle.META_CLIENT_CAPABILITIES);
    }
    JsonNode version = meta.get(Lifecycle.META_PROTOCOL_VERSION);
    if (version == null || !version.isTextual()) {
      throw McpException.invalidParams("Missing params._meta[\"" + Lifecycle.META_PROTOCOL_VERSION + "\"]");
    }
    JsonNode capabilities = meta.get(Lifecycle.META_CLIENT_CAPABILITIES);
    if (capabilities == null || !capabilities.isObject()) {
      throw McpException.invalidParams("Missing params._meta[\"" + Lifecycle.META_CLIENT_CAPABILITIES + "\"]");
    }
    if (!Lifecycle.SUPPORTED_VERSIONS.contains(version.asText())) {
      ObjectNode data = Json.object();
      data.set("supported", Json.tree(Lifecycle.SUPPORTED_VERSIONS));
      data.put("requested", version.asText());
      throw new McpException(ErrorCodes.UNSUPPORTED_PROTOCOL_VERSION,
          "Unsupported protocol version: " + version.asText(), data);
    }
    JsonNode progressToken = meta.get("progressToken");
    if (progressToken != null && !progressToken.isTextual() && !progressToken.isIntegralNumber()) {
      throw McpException.invalidParams("params._meta.progressToken must be a string or an integer");
    }
    LogLevel logLevel = null;
    JsonNode level = meta.get(Lifecycle.META_LOG_LEVEL);
    if (level != null) {
      logLevel = LogLevel.fromWire(level.asText()).orElseThrow(() -> McpException.invalidParams(
          "Unknown log level in params._meta[\"" + Lifecycle.META_LOG_LEVEL + "\"]: " + level));
    }
    return new McpRequest(message.id(), message.method(), message.params(), version.asText(),
        ClientCapabilities.of(capabilities), principal, progressToken, logLevel);
  }

  /** Whether the reply should be a stream (progress or log notifications may precede it). */
  public boolean wantsNotifications() {
    return progressToken != null || logLevel != null;
  }

  /** A string member of params, or null when absent; -32602 when present with another type. */
  public String stringParam(String name) {
    JsonNode value = params.get(name);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isTextual()) {
      throw McpException.invalidParams("params." + name + " must be a string");
    }
    return value.asText();
  }

  /** An object member of params, or null when absent; -32602 when present with another type. */
  public ObjectNode objectParam(String name) {
    JsonNode value = params.get(name);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isObject()) {
      throw McpException.invalidParams("params." + name + " must be an object");
    }
    return (ObjectNode) value;
  }
}
