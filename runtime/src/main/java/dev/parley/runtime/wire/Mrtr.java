package dev.parley.runtime.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;

import java.util.Map;

/** Multi Round-Trip Request wire types (spec §2). */
public final class Mrtr {
  private Mrtr() {}

  /** One request inside {@code inputRequests}: method and params only, no id. */
  @JsonInclude(JsonInclude.Include.NON_ABSENT)
  public record InputRequest(String method, JsonNode params) {
    public static final String ELICIT = "elicitation/create";
    public static final String SAMPLING = "sampling/createMessage";
    public static final String ROOTS = "roots/list";
  }

  @JsonInclude(JsonInclude.Include.NON_ABSENT)
  public record InputRequiredResult(String resultType, Map<String, InputRequest> inputRequests, String requestState) {
    public InputRequiredResult(Map<String, InputRequest> inputRequests, String requestState) {
      this("input_required", inputRequests, requestState);
    }
  }
}
