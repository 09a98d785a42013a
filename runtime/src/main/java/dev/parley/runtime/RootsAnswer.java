package dev.parley.runtime;

import java.util.List;

/**
 * The client's {@code ListRootsResult}.
 *
 * @deprecated with {@link RootsRequest}.
 */
@Deprecated
public record RootsAnswer(List<Root> roots) implements InputAnswer {

    public RootsAnswer {
        roots = List.copyOf(roots);
    }

    public record Root(String uri, String name) {}
}
