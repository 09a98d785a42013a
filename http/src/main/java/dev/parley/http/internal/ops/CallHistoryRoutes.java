package dev.parley.http.internal.ops;

import com.typesafe.config.Config;
import dev.parley.actors.internal.CallHistoryExport;
import dev.parley.http.internal.console.ConsoleAccess;
import dev.parley.http.internal.console.ConsoleSettings;
import dev.parley.runtime.Json;
import java.util.Map;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.management.javadsl.ManagementRouteProvider;
import org.apache.pekko.management.javadsl.ManagementRouteProviderSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /calls/{id}/history} on the management port: the recorded history of a call (or
 * of the task it became) as JSON, for the test kit's replay check. Off unless
 * {@code parley.management.call-history = on}: a history holds the call's arguments and answers.
 * When on, it answers under the console's access rule ({@code parley.console.access}): not at all
 * with {@code off}, to this machine with {@code loopback}, to a token with the console's scope with
 * {@code scope}; each export is logged with who asked.
 */
public final class CallHistoryRoutes extends AllDirectives implements ManagementRouteProvider {
    private static final Logger log = LoggerFactory.getLogger(CallHistoryRoutes.class);

    private final boolean enabled;
    private final ConsoleAccess access;
    private final ManagementHosts hosts;
    private final ExtendedActorSystem system;
    private volatile CallHistoryExport export;

    public CallHistoryRoutes(ExtendedActorSystem system) {
        this.system = system;
        // pekko-management creates this from the actor system alone: the settings are read here, once.
        Config config = system.settings().config();
        ManagementSettings management = ManagementSettings.from(config);
        this.access = ConsoleAccess.from(config);
        this.hosts = ManagementHosts.from(management);
        this.enabled = management.callHistory() && access.access() != ConsoleSettings.Access.OFF;
    }

    @Override
    public Route routes(ManagementRouteProviderSettings settings) {
        return hosts.guard(() -> pathPrefix(
                "calls",
                () -> path(
                        PathMatchers.segment().slash("history"),
                        id -> get(() -> {
                            if (!enabled) {
                                return complete(json(
                                        404,
                                        Map.of(
                                                "error",
                                                "the call history export is off (parley.management.call-history,"
                                                        + " parley.console.access)")));
                            }
                            return extractRequest(request -> onSuccess(
                                    access.decide(request),
                                    decision -> decision.isAllowed()
                                            ? exported(id, decision.operator())
                                            : complete(access.refusal(decision))));
                        }))));
    }

    private Route exported(String id, String operator) {
        if (!CallHistoryExport.isValidId(id)) {
            return complete(json(400, Map.of("error", "not a call or task id")));
        }
        return onSuccess(export().export(id), found -> {
            found.ifPresent(recording -> log.info("call history of {} exported to {}", id, operator));
            return complete(found.map(recording -> json(200, recording))
                    .orElseGet(() -> json(404, Map.of("error", "no call or task " + id + " in the journal"))));
        });
    }

    private CallHistoryExport export() {
        CallHistoryExport current = export;
        if (current == null) {
            // Made on first use: the read journal needs the persistence plugins, which start with the node.
            current = new CallHistoryExport(Adapter.toTyped(system));
            export = current;
        }
        return current;
    }

    private static HttpResponse json(int status, Object body) {
        return HttpResponse.create()
                .withStatus(StatusCodes.get(status))
                .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, Json.write(body)));
    }
}
