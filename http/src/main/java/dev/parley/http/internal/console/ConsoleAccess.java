package dev.parley.http.internal.console;

import com.typesafe.config.Config;
import dev.parley.http.auth.AuthSettings;
import dev.parley.http.internal.auth.BearerTokens;
import dev.parley.http.internal.console.ConsoleApi.Problem;
import dev.parley.http.internal.ops.ManagementHosts;
import dev.parley.runtime.Json;
import dev.parley.runtime.Principal;
import java.net.InetAddress;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.http.javadsl.model.AttributeKeys;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.RemoteAddress;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;

/**
 * The console's access rule ({@code parley.console.access}): who is asking, or why not. With
 * {@code loopback} the connection must come from this machine and name it in its Host header (a
 * page on another site that rebinds its DNS name to 127.0.0.1 gets 403); with {@code scope} a
 * bearer token, validated like the MCP endpoint's, must carry the configured scope. The
 * call-history export on the management port answers under the same rule.
 */
public final class ConsoleAccess {
    private static final Set<String> LOOPBACK_HOSTS = Set.of("localhost", "127.0.0.1", "[::1]", "::1");

    /** Who may go on (a name for the logs), or the status and reason of a refusal. */
    public record Decision(String operator, int status, Problem refusal) {
        static Decision allowed(String operator) {
            return new Decision(operator, 200, null);
        }

        static Decision refused(int status, String reason) {
            return new Decision(null, status, new Problem(reason));
        }

        public boolean isAllowed() {
            return refusal == null;
        }
    }

    private final ConsoleSettings settings;
    private final BearerTokens tokens;

    ConsoleAccess(ConsoleSettings settings, AuthSettings auth) {
        this.settings = settings;
        this.tokens = settings.access() == ConsoleSettings.Access.SCOPE ? new BearerTokens(auth) : null;
    }

    /** The rule {@code parley.console} configures, with {@code parley.auth}'s token validation for {@code scope}. */
    public static ConsoleAccess from(Config config) {
        ConsoleSettings settings = ConsoleSettings.from(config);
        return new ConsoleAccess(
                settings, settings.access() == ConsoleSettings.Access.SCOPE ? AuthSettings.from(config) : null);
    }

    public ConsoleSettings.Access access() {
        return settings.access();
    }

    public CompletionStage<Decision> decide(HttpRequest request) {
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

    /** A refusal as the answer: its status and reason, and for 401 the scope a token must carry. */
    public HttpResponse refusal(Decision decision) {
        HttpResponse refused = HttpResponse.create()
                .withStatus(StatusCodes.get(decision.status()))
                .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, Json.write(decision.refusal())));
        return decision.status() == 401
                ? refused.addHeader(
                        RawHeader.create("WWW-Authenticate", "Bearer scope=\"" + settings.requiredScope() + "\""))
                : refused;
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
        return ManagementHosts.hostName(request);
    }
}
