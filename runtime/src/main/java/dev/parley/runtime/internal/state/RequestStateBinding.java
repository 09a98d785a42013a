package dev.parley.runtime.internal.state;

import java.util.Objects;

/**
 * What a {@code requestState} is bound to: who asked, which method, which tool (or prompt, or
 * resource) and which arguments (as a digest). A state opened under any other binding is refused.
 */
public record RequestStateBinding(String principal, String method, String name, String argumentsDigest) {
    public RequestStateBinding {
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(argumentsDigest, "argumentsDigest");
    }
}
