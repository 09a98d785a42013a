package dev.parley.runtime.internal.wire;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.util.JsonParserDelegate;
import dev.parley.runtime.McpException;
import dev.parley.runtime.RequestLimits;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Refuses a message that JSON syntax allows but a well-formed MCP request never holds: strings
 * (values and member names) that are not valid Unicode (a lone surrogate, written as
 * {@code "\ud800"} or as its raw bytes), numbers that are not finite doubles ({@code 1e309}),
 * and structures beyond {@link RequestLimits}. The whole message is checked (id, method and every
 * part of params: arguments, inputResponses, requestState, cursors, _meta), so no handler and
 * no journal ever sees such a value.
 *
 * <p>The checks run on the token stream while the message is parsed ({@link Parser} wraps the
 * JSON parser), so a message is read once instead of parsed and then walked again. The first
 * problem is kept and reported after the envelope's own checks, in the order the tokens come.
 */
public final class RequestChecks {
    private static final int MAX_SHOWN_SEGMENT = 40;

    private RequestChecks() {}

    /** Whether {@code text} is valid Unicode: every surrogate is half of a pair. */
    public static boolean isValidUnicode(String text) {
        return firstLoneSurrogate(text) < 0;
    }

    /**
     * Whether a string read from {@code json} (UTF-8) can hold a lone surrogate at all: only through
     * an escape (a backslash) or a surrogate's own three bytes (which start with {@code 0xED}). Most
     * bodies have neither, and one pass over their bytes spares a pass over every string's chars.
     */
    static boolean mayHoldLoneSurrogate(byte[] json) {
        for (byte b : json) {
            if (b == '\\' || b == (byte) 0xED) {
                return true;
            }
        }
        return false;
    }

    private static int firstLoneSurrogate(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < Character.MIN_SURROGATE) {
                continue;
            }
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    /** Ends the read of a message nested deeper than the limit; {@link #problem} says so. */
    public static final class TooDeep extends IOException {
        private final transient McpException problem;

        TooDeep(McpException problem) {
            super(problem.getMessage());
            this.problem = problem;
        }

        public McpException problem() {
            return problem;
        }
    }

    /**
     * A parser that checks every token {@code parser} reads; after the value is read,
     * {@link #problem()} is the first problem found (a -32602 {@link McpException}), or null.
     */
    public static final class Parser extends JsonParserDelegate {
        private final RequestLimits limits;
        private final boolean surrogatesPossible;
        private McpException problem;
        private int members;

        /** @param surrogatesPossible false when the input cannot hold a lone surrogate ({@link #mayHoldLoneSurrogate}) */
        public Parser(JsonParser parser, RequestLimits limits, boolean surrogatesPossible) {
            super(parser);
            this.limits = limits;
            this.surrogatesPossible = surrogatesPossible;
        }

        /** The first problem in what was read so far, or null. */
        public McpException problem() {
            return problem;
        }

        @Override
        public JsonToken nextToken() throws IOException {
            JsonToken token = delegate.nextToken();
            if (token != null && problem == null) {
                check(token);
            }
            return token;
        }

        // The tree reader may use these shortcuts; each goes through nextToken so no token escapes the checks.
        @Override
        public String nextFieldName() throws IOException {
            return nextToken() == JsonToken.FIELD_NAME ? delegate.currentName() : null;
        }

        @Override
        public boolean nextFieldName(SerializableString name) throws IOException {
            return nextToken() == JsonToken.FIELD_NAME && name.getValue().equals(delegate.currentName());
        }

        @Override
        public JsonToken nextValue() throws IOException {
            JsonToken token = nextToken();
            return token == JsonToken.FIELD_NAME ? nextToken() : token;
        }

        @Override
        public String nextTextValue() throws IOException {
            return nextToken() == JsonToken.VALUE_STRING ? delegate.getText() : null;
        }

        @Override
        public int nextIntValue(int defaultValue) throws IOException {
            return nextToken() == JsonToken.VALUE_NUMBER_INT ? delegate.getIntValue() : defaultValue;
        }

        @Override
        public long nextLongValue(long defaultValue) throws IOException {
            return nextToken() == JsonToken.VALUE_NUMBER_INT ? delegate.getLongValue() : defaultValue;
        }

        @Override
        public Boolean nextBooleanValue() throws IOException {
            JsonToken token = nextToken();
            return token == JsonToken.VALUE_TRUE ? Boolean.TRUE : token == JsonToken.VALUE_FALSE ? Boolean.FALSE : null;
        }

        @Override
        public JsonParser skipChildren() throws IOException {
            if (currentToken() == JsonToken.START_OBJECT || currentToken() == JsonToken.START_ARRAY) {
                int open = 1;
                while (open > 0) {
                    JsonToken token = nextToken();
                    if (token == null) {
                        break;
                    }
                    if (token.isStructStart()) {
                        open++;
                    } else if (token.isStructEnd()) {
                        open--;
                    }
                }
            }
            return this;
        }

        private void check(JsonToken token) throws IOException {
            JsonStreamContext context = delegate.getParsingContext();
            // The container a value sits in: for a new object or array, the context it was opened in.
            JsonStreamContext holder = token.isStructStart() ? context.getParent() : context;
            if (token == JsonToken.FIELD_NAME) {
                count(context);
                checkString(context, delegate.currentName(), "member name");
                return;
            }
            if (token.isStructEnd()) {
                return;
            }
            if (holder != null && holder.inArray()) {
                if (holder.getCurrentIndex() >= limits.maxArrayLength()) {
                    refuse(holder, true, "is an array of more than " + limits.maxArrayLength() + " elements");
                    return;
                }
                count(holder);
            }
            if (token.isStructStart()) {
                if (context.getNestingDepth() > limits.maxDepth()) {
                    refuse(holder, false, "is nested deeper than " + limits.maxDepth() + " levels");
                    // Nothing deeper is worth reading (and the JSON parser's own, higher limit would
                    // otherwise turn a very deep message into a parse error).
                    throw new TooDeep(problem);
                }
            } else if (token == JsonToken.VALUE_STRING) {
                checkString(context, delegate.getText(), "string");
            } else if (token == JsonToken.VALUE_NUMBER_FLOAT && !Double.isFinite(delegate.getDoubleValue())
                    || token == JsonToken.VALUE_NUMBER_INT
                            && delegate.getNumberType() == NumberType.BIG_INTEGER
                            && !Double.isFinite(delegate.getBigIntegerValue().doubleValue())) {
                // read the way the tree reads them (an integer as an integer), so the value it keeps is the same
                refuse(context, false, "is a number that is not a finite double");
            }
        }

        /** One more value in {@code container} (a member or an element); the path named is the container's. */
        private void count(JsonStreamContext container) {
            if (++members > limits.maxMembers()) {
                refuse(container, true, "makes the message hold more than " + limits.maxMembers() + " values");
            }
        }

        private void checkString(JsonStreamContext where, String text, String what) {
            if (text.length() > limits.maxStringLength()) {
                refuse(where, false, "has a " + what + " longer than " + limits.maxStringLength() + " characters");
                return;
            }
            int lone = surrogatesPossible ? firstLoneSurrogate(text) : -1;
            if (lone >= 0) {
                refuse(
                        where,
                        false,
                        "has a " + what + " that is not valid Unicode (a lone surrogate U+"
                                + Integer.toHexString(text.charAt(lone)).toUpperCase(java.util.Locale.ROOT)
                                + " at index " + lone + ")");
            }
        }

        /**
         * Keeps the first problem, located by the JSON pointer of {@code where}'s current member or
         * element, or of {@code where} itself when {@code container} (e.g. an array that is too long).
         */
        private void refuse(JsonStreamContext where, boolean container, String what) {
            if (problem != null) {
                return;
            }
            List<String> segments = new ArrayList<>();
            for (JsonStreamContext c = container ? where.getParent() : where;
                    c != null && !c.inRoot();
                    c = c.getParent()) {
                segments.add(
                        0,
                        c.inArray()
                                ? Integer.toString(Math.max(c.getCurrentIndex(), 0))
                                : String.valueOf(c.getCurrentName()));
            }
            String at = segments.isEmpty()
                    ? "the message"
                    : "/"
                            + String.join(
                                    "/",
                                    segments.stream().map(RequestChecks::shown).toList());
            problem = McpException.invalidParams("Invalid request: " + at + " " + what);
        }
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
