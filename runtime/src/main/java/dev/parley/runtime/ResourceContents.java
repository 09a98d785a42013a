package dev.parley.runtime;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;

/** What {@code resources/read} returns for one URI: text, or base64 binary. */
@JsonInclude(JsonInclude.Include.NON_ABSENT)
public sealed interface ResourceContents {

    static Text text(String uri, String mimeType, String text) {
        return new Text(uri, mimeType, text);
    }

    static Blob blob(String uri, String mimeType, String base64) {
        return new Blob(uri, mimeType, base64);
    }

    /** {@code meta} is the contents' {@code _meta} (e.g. an MCP Apps view's {@code ui}), usually null. */
    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    record Text(
            String uri,
            String mimeType,
            String text,
            @JsonProperty("_meta") Map<String, Object> meta) implements ResourceContents {
        public Text(String uri, String mimeType, String text) {
            this(uri, mimeType, text, null);
        }
    }

    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    record Blob(String uri, String mimeType, String blob) implements ResourceContents {}
}
