package dev.parley.http.internal.ops;

import dev.parley.actors.internal.CallHistoryExport;
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

/**
 * {@code GET /calls/{id}/history} on the management port: the recorded history of a call (or
 * of the task it became) as JSON, for the test kit's replay check. Off unless
 * {@code parley.management.call-history = on}: a history holds the call's arguments and answers.
 */
public final class CallHistoryRoutes extends AllDirectives implements ManagementRouteProvider {
    private final boolean enabled;
    private final ExtendedActorSystem system;
    private volatile CallHistoryExport export;

    public CallHistoryRoutes(ExtendedActorSystem system) {
        this.system = system;
        this.enabled = system.settings().config().getBoolean("parley.management.call-history");
    }

    @Override
    public Route routes(ManagementRouteProviderSettings settings) {
        return pathPrefix(
                "calls",
                () -> path(
                        PathMatchers.segment().slash("history"),
                        id -> get(() -> {
                            if (!enabled) {
                                return complete(json(
                                        404,
                                        Map.of(
                                                "error",
                                                "the call history export is off (parley.management.call-history)")));
                            }
                            if (!CallHistoryExport.isValidId(id)) {
                                return complete(json(400, Map.of("error", "not a call or task id")));
                            }
                            return onSuccess(
                                    export().export(id),
                                    found -> complete(found.map(recording -> json(200, recording))
                                            .orElseGet(() -> json(
                                                    404,
                                                    Map.of("error", "no call or task " + id + " in the journal")))));
                        })));
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
