package dev.parley.runtime.internal.wire;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.runtime.McpException;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;

/**
 * Refuses a parsed message that JSON syntax allows but a well-formed MCP request never holds:
 * strings (values and member names) that are not valid Unicode (a lone surrogate, written as
 * {@code "\ud800"} or as its raw bytes), numbers that are not finite doubles ({@code 1e309}),
 * and structures beyond {@link RequestLimits}. The whole message is checked (id, method and every
 * part of params: arguments, inputResponses, requestState, cursors, _meta), so no handler and
 * no journal ever sees such a value.
 */
public final class RequestChecks {
  private static final int MAX_SHOWN_SEGMENT = 40;

  private RequestChecks() {}

  /** Throws {@link McpException} -32602 naming the first problem and where it is (a JSON pointer). */
  public static void check(JsonNode message, RequestLimits limits) {
    new Walk(limits).visit(message, 1);
  }

  /** Whether {@code text} is valid Unicode: every surrogate is half of a pair. */
  public static boolean isValidUnicode(String text) {
    return firstLoneSurrogate(text) < 0;
  }

  private static int firstLoneSurrogate(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return i;
      }
    }
    return -1;
  }

  private static final class Walk {
    private final RequestLimits limits;
    /** The path to the value being visited, for the error message. */
    private final Deque<String> path = new ArrayDeque<>();
    private int members;

    Walk(RequestLimits limits) {
      this.limits = limits;
    }

    void visit(JsonNode node, int depth) {
      if (node.isContainerNode() && depth > limits.maxDepth()) {
        throw refuse("is nested deeper than " + limits.maxDepth() + " levels");
      }
      if (node.isTextual()) {
        checkString(node.textValue(), "string");
      } else if (node.isNumber()) {
        if (!Double.isFinite(node.doubleValue())) {
          throw refuse("is a number that is not a finite double");
        }
      } else if (node.isArray()) {
        if (node.size() > limits.maxArrayLength()) {
          throw refuse("is an array of more than " + limits.maxArrayLength() + " elements");
        }
        for (int i = 0; i < node.size(); i++) {
          count();
          path.addLast(Integer.toString(i));
          visit(node.get(i), depth + 1);
          path.removeLast();
        }
      } else if (node.isObject()) {
        for (Map.Entry<String, JsonNode> member : node.properties()) {
          count();
          path.addLast(member.getKey());
          checkString(member.getKey(), "member name");
          visit(member.getValue(), depth + 1);
          path.removeLast();
        }
      }
    }

    private void count() {
      if (++members > limits.maxMembers()) {
        throw refuse("makes the message hold more than " + limits.maxMembers() + " values");
      }
    }

    private void checkString(String text, String what) {
      if (text.length() > limits.maxStringLength()) {
        throw refuse("has a " + what + " longer than " + limits.maxStringLength() + " characters");
      }
      int lone = firstLoneSurrogate(text);
      if (lone >= 0) {
        throw refuse("has a " + what + " that is not valid Unicode (a lone surrogate U+"
            + Integer.toHexString(text.charAt(lone)).toUpperCase(java.util.Locale.ROOT) + " at index " + lone + ")");
      }
    }

    private McpException refuse(String problem) {
      String where = path.isEmpty() ? "the message" : "/" + String.join("/", path.stream().map(Walk::shown).toList());
      return McpException.invalidParams("Invalid request: " + where + " " + problem);
    }

    /** A path segment as it may be echoed: JSON-pointer escaped, short, every surrogate and control char as \\uXXXX. */
    private static String shown(String segment) {
      StringBuilder out = new StringBuilder();
      for (int i = 0; i < segment.length() && out.length() < MAX_SHOWN_SEGMENT; i++) {
        char c = segment.charAt(i);
        if (c == '~') {
          out.append("~0");
        } else if (c == '/') {
          out.append("~1");
        } else if (Character.isSurrogate(c) || Character.isISOControl(c)) {
          out.append(String.format("\\u%04X", (int) c));
        } else {
          out.append(c);
        }
      }
      return out.length() >= MAX_SHOWN_SEGMENT ? out + "..." : out.toString();
    }
  }
}
