package dev.parley.runtime;

/**
 * Structural limits on one incoming message, checked with its Unicode and numbers by
 * {@link RequestChecks} before anything runs. The defaults are far beyond any legitimate MCP
 * request; they bound what a hostile one can make the server hold and walk.
 *
 * @param maxDepth        deepest nesting of objects and arrays, counting the message itself
 * @param maxStringLength longest string value or member name, in UTF-16 chars
 * @param maxArrayLength  most elements in one array
 * @param maxMembers      most values in the whole message (object members plus array elements)
 */
public record RequestLimits(int maxDepth, int maxStringLength, int maxArrayLength, int maxMembers) {

    public static final RequestLimits DEFAULTS = new RequestLimits(64, 512 * 1024, 50_000, 100_000);

    public RequestLimits {
        if (maxDepth < 4 || maxStringLength < 1 || maxArrayLength < 1 || maxMembers < 1) {
            throw new IllegalArgumentException("request limits must be positive (max-depth at least 4): " + this);
        }
    }
}
