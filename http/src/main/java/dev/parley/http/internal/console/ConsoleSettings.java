package dev.parley.http.internal.console;

import com.typesafe.config.Config;

/**
 * {@code parley.console}: who may open the operations console and what it shows.
 *
 * @param access {@code off} (not served), {@code loopback} (connections from this machine only) or
 *     {@code scope} (a bearer token carrying {@code requiredScope})
 * @param showContents whether answers' contents, arguments, step values and results are shown
 *     (off: only keys, actions and sizes)
 */
public record ConsoleSettings(Access access, String requiredScope, boolean showContents, int pageSize) {

    public enum Access {
        OFF,
        LOOPBACK,
        SCOPE
    }

    public ConsoleSettings {
        if (pageSize < 1 || pageSize > 500) {
            throw new IllegalArgumentException("parley.console.page-size must be between 1 and 500, not " + pageSize);
        }
        if (access == Access.SCOPE && requiredScope.isBlank()) {
            throw new IllegalArgumentException("parley.console.access = scope needs parley.console.required-scope");
        }
    }

    public static ConsoleSettings from(Config config) {
        Config console = config.getConfig("parley.console");
        String access = console.getString("access");
        Access parsed = switch (access) {
            case "off" -> Access.OFF;
            case "loopback" -> Access.LOOPBACK;
            case "scope" -> Access.SCOPE;
            default ->
                throw new IllegalArgumentException(
                        "parley.console.access must be off, loopback or scope, not " + access);
        };
        return new ConsoleSettings(
                parsed,
                console.getString("required-scope"),
                console.getBoolean("show-contents"),
                console.getInt("page-size"));
    }
}
