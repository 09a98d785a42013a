package dev.parley.http.internal.console;

import dev.parley.http.auth.AuthSettings;
import dev.parley.http.internal.auth.BearerTokens;
import dev.parley.http.internal.console.ConsoleApi.Problem;
import dev.parley.runtime.Principal;
import java.net.InetAddress;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.http.javadsl.model.AttributeKeys;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.RemoteAddress;

/**
 * The console's access rule ({@code parley.console.access}): who is asking, or why not. With
 * {@code loopback} the connection must come from this machine and name it in its Host header (a
 * page on another site that rebinds its DNS name to 127.0.0.1 gets 403); with {@code scope} a
 * bearer token, validated like the MCP endpoint's, must carry the configured scope.
 */
final class ConsoleAccess {
    private static final Set<String> LOOPBACK_HOSTS = Set.of("localhost", "127.0.0.1", "[::1]", "::1");

    /** Who may go on (a name for the logs), or the status and reason of a refusal. */
    record Decision(String operator, int status, Problem refusal) {
        static Decision allowed(String operator) {
            return new Decision(operator, 200, null);
        }

        static Decision refused(int status, String reason) {
            return new Decision(null, status, new Problem(reason));
        }

        boolean isAllowed() {
            return refusal == null;
        }
    }

    private final ConsoleSettings settings;
    private final BearerTokens tokens;

    ConsoleAccess(ConsoleSettings settings, AuthSettings auth) {
        this.settings = settings;
        this.tokens = settings.access() == ConsoleSettings.Access.SCOPE ? new BearerTokens(auth) : null;
    }

    CompletionStage<Decision> decide(HttpRequest request) {
        return switch (settings.access()) {
            case OFF -> CompletableFuture.completedFuture(Decision.refused(404, "The console is off"));
            case LOOPBACK -> CompletableFuture.completedFuture(loopback(request));
            case SCOPE ->
                tokens.principalOf(request.getHeader("authorization").map(HttpHeader::value))
                        .thenApply(this::scoped);
        };
    }

    private Decision loopback(HttpRequest request) {
        Optional<InetAddress> remote =
                request.getAttribute(AttributeKeys.remoteAddress).flatMap(RemoteAddress::getAddress);
        if (remote.isEmpty() || !remote.get().isLoopbackAddress()) {
            return Decision.refused(
                    403, "The console answers connections from this machine only (parley.console.access = loopback)");
        }
        if (!LOOPBACK_HOSTS.contains(hostName(request))) {
            return Decision.refused(403, "The console answers requests for localhost only (Host header)");
        }
        int port = request.getAttribute(AttributeKeys.remoteAddress)
                .map(RemoteAddress::getPort)
                .orElse(0);
        return Decision.allowed("loopback " + remote.get().getHostAddress() + ":" + port);
    }

    private Decision scoped(Optional<Principal> principal) {
        if (principal.isEmpty()) {
            return Decision.refused(401, "The console needs a valid bearer token");
        }
        if (!principal.get().hasScope(settings.requiredScope())) {
            return Decision.refused(403, "The console needs the scope " + settings.requiredScope());
        }
        return Decision.allowed(principal.get().id());
    }

    /** The Host header's name without its port, lower case; empty when absent. */
    static String hostName(HttpRequest request) {
        String host = request.getHeader("host")
                .map(HttpHeader::value)
                .orElse("")
                .trim()
                .toLowerCase(Locale.ROOT);
        if (host.startsWith("[")) {
            int end = host.indexOf(']');
            return end < 0 ? host : host.substring(0, end + 1);
        }
        int colon = host.indexOf(':');
        return colon < 0 ? host : host.substring(0, colon);
    }
}
