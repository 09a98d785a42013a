package dev.parley.runtime.wire;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.List;

/** Stateless lifecycle: per-request {@code _meta} keys and {@code server/discover} (spec §5). */
public final class Lifecycle {
  private Lifecycle() {}

  public static final String PROTOCOL_VERSION = "2026-07-28";
  public static final List<String> SUPPORTED_VERSIONS = List.of(PROTOCOL_VERSION);

  public static final String META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
  public static final String META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
  public static final String META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
  public static final String META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";
  public static final String META_LOG_LEVEL = "io.modelcontextprotocol/logLevel";

  @JsonInclude(JsonInclude.Include.NON_ABSENT)
  public record Implementation(String name, String version, String title) {}
}
