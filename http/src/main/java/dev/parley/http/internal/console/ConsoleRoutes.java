package dev.parley.http.internal.console;

import dev.parley.actors.internal.NodeSharding;
import dev.parley.actors.internal.TaskEntity;
import dev.parley.http.internal.console.ConsoleAccess.Decision;
import dev.parley.http.internal.console.ConsoleApi.Cancelled;
import dev.parley.http.internal.console.ConsoleApi.ListPage;
import dev.parley.http.internal.console.ConsoleApi.Problem;
import dev.parley.http.internal.console.ConsoleApi.Timeline;
import dev.parley.http.internal.ops.ManagementHosts;
import dev.parley.persistence.internal.JournalBrowser;
import dev.parley.persistence.internal.JournalBrowser.Page;
import dev.parley.persistence.internal.JournalBrowser.StoredEvent;
import dev.parley.runtime.Json;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.http.javadsl.marshallers.jackson.Jackson;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.management.javadsl.ManagementRouteProvider;
import org.apache.pekko.management.javadsl.ManagementRouteProviderSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operations console on the management port (configured in {@code pekko.management.http.routes}):
 * the page and its assets under {@code /console}, its JSON under {@code /console/api}. Lists and
 * timelines are read from the journal; the overview from this node's metrics and Pekko's cluster
 * state; a task is cancelled through its {@link TaskEntity}, like {@code tasks/cancel}.
 */
public final class ConsoleRoutes extends AllDirectives implements ManagementRouteProvider {
    private static final Logger log = LoggerFactory.getLogger(ConsoleRoutes.class);

    /** A cancel must carry this header: a cross-site form or image cannot send it, a cross-site script needs CORS. */
    static final String ACTION_HEADER = "X-Parley-Console-Action";

    private static final String ASSETS = "parley/console/";
    /** uPlot, from its npm package as a webjar (see the http module's pom). */
    private static final String UPLOT = "META-INF/resources/webjars/uplot/" + ConsoleVendor.UPLOT_VERSION + "/dist/";

    private static final Pattern ENTITY_ID = Pattern.compile("[A-Za-z0-9._-]{1,128}");
    private static final Duration ENTITY_ASK_TIMEOUT = Duration.ofSeconds(5);
    private static final List<HttpHeader> PAGE_HEADERS = List.of(
            RawHeader.create(
                    "Content-Security-Policy",
                    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
                            + "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"),
            RawHeader.create("X-Content-Type-Options", "nosniff"),
            RawHeader.create("Referrer-Policy", "no-referrer"),
            RawHeader.create("Cache-Control", "no-store"));

    private final ActorSystem<?> system;
    private final ConsoleSettings settings;
    private final ConsoleAccess access;
    private final ManagementHosts hosts;
    private final JournalViews views;
    private final OverviewReader overview;
    private final Executor blocking;

    public ConsoleRoutes(ExtendedActorSystem classic) {
        this.system = Adapter.toTyped(classic);
        this.settings = ConsoleSettings.from(classic.settings().config());
        this.access = ConsoleAccess.from(classic.settings().config());
        this.hosts = ManagementHosts.from(classic.settings().config());
        this.views = new JournalViews(settings.showContents());
        this.overview = new OverviewReader(system);
        this.blocking = system.dispatchers().lookup(DispatcherSelector.blocking());
    }

    @Override
    public Route routes(ManagementRouteProviderSettings management) {
        if (settings.access() == ConsoleSettings.Access.OFF) {
            return reject();
        }
        return hosts.guard(this::consoleRoutes);
    }

    private Route consoleRoutes() {
        // Compressed when the browser accepts it (uPlot is most of the page's weight).
        return pathPrefix(
                "console",
                () -> encodeResponse(() -> respondWithHeaders(
                        PAGE_HEADERS,
                        () -> concat(
                                pathEndOrSingleSlash(
                                        () -> get(() -> shell(() -> getFromResource(ASSETS + "index.html")))),
                                pathPrefix(
                                        "assets",
                                        () -> get(() -> shell(() -> concat(
                                                path("console.js", () -> getFromResource(ASSETS + "console.js")),
                                                path("console.css", () -> getFromResource(ASSETS + "console.css")),
                                                path(
                                                        "uPlot.min.js",
                                                        () -> getFromResource(UPLOT + "uPlot.iife.min.js")),
                                                path(
                                                        "uPlot.min.css",
                                                        () -> getFromResource(UPLOT + "uPlot.min.css")))))),
                                pathPrefix("api", () -> guarded(operator -> api(operator)))))));
    }

    /**
     * The page and its assets hold no data: with {@code scope} access they are served to anyone (the
     * page then asks for a token); with {@code loopback} only to this machine.
     */
    private Route shell(Supplier<Route> inner) {
        return settings.access() == ConsoleSettings.Access.SCOPE ? inner.get() : guarded(operator -> inner.get());
    }

    private Route guarded(Function<String, Route> inner) {
        return extractRequest(request -> onSuccess(
                access.decide(request),
                decision -> decision.isAllowed() ? inner.apply(decision.operator()) : refuse(decision)));
    }

    private Route refuse(Decision decision) {
        return complete(access.refusal(decision));
    }

    private Route api(String operator) {
        return concat(
                path("overview", () -> get(() -> onSuccess(overview.read(), value -> json(200, value)))),
                pathPrefix(
                        "calls",
                        () -> concat(
                                pathEnd(() -> get(() -> list("call"))),
                                path(PathMatchers.segment(), id -> get(() -> timeline("call", id))))),
                pathPrefix(
                        "tasks",
                        () -> concat(
                                pathEnd(() -> get(() -> list("task"))),
                                pathPrefix(
                                        PathMatchers.segment(),
                                        id -> concat(
                                                pathEnd(() -> get(() -> timeline("task", id))),
                                                path(
                                                        "cancel",
                                                        () -> post(() -> extractRequest(
                                                                request -> cancel(id, operator, request)))))))),
                complete(
                        StatusCodes.NOT_FOUND,
                        new Problem("No such console endpoint"),
                        Jackson.marshaller(Json.MAPPER)));
    }

    // --- lists ------------------------------------------------------------------------------

    private Route list(String kind) {
        return parameterOptional(
                "status",
                status -> parameterOptional(
                        "tool",
                        tool -> parameterOptional(
                                "min-age",
                                minAge -> parameterOptional("cursor", cursor -> {
                                    Map<String, String> statuses =
                                            kind.equals("call") ? JournalViews.CALL_STATUS : JournalViews.TASK_STATUS;
                                    Set<String> open =
                                            kind.equals("call") ? JournalViews.OPEN_CALL : JournalViews.OPEN_TASK;
                                    String wanted = status.orElse("open");
                                    Set<String> selected;
                                    if (wanted.equals("open")) {
                                        selected = open;
                                    } else if (wanted.equals("any")) {
                                        selected = Set.copyOf(statuses.values());
                                    } else if (statuses.containsValue(wanted)) {
                                        selected = Set.of(wanted);
                                    } else {
                                        return json(
                                                400,
                                                new Problem("status must be open, any or one of "
                                                        + Set.copyOf(statuses.values())));
                                    }
                                    Optional<Long> age = number(minAge);
                                    Optional<Long> before = number(cursor);
                                    if ((minAge.isPresent() && age.isEmpty())
                                            || (cursor.isPresent() && before.isEmpty())) {
                                        return json(
                                                400,
                                                new Problem(
                                                        "min-age (seconds) and cursor must be non-negative whole numbers"));
                                    }
                                    if (tool.isPresent()
                                            && (tool.get().isEmpty()
                                                    || tool.get().length() > 256)) {
                                        return json(400, new Problem("tool must be 1 to 256 characters"));
                                    }
                                    return withJournal(browser -> {
                                        Instant now = Instant.now();
                                        long startedAtOrBefore =
                                                now.minusSeconds(age.orElse(0L)).toEpochMilli();
                                        Page page = browser.page(
                                                kind.equals("call")
                                                        ? JournalViews.CALL_PREFIX
                                                        : JournalViews.TASK_PREFIX,
                                                JournalViews.manifestsFor(statuses, selected),
                                                startedAtOrBefore,
                                                before.orElse(Long.MAX_VALUE),
                                                settings.pageSize(),
                                                row -> tool.isEmpty()
                                                        || tool.get().equals(JournalViews.nameOf(row.first())));
                                        return new Answer(
                                                200,
                                                new ListPage(
                                                        kind,
                                                        wanted,
                                                        page.rows().stream()
                                                                .map(row -> views.item(row, statuses, now))
                                                                .toList(),
                                                        page.next().isPresent()
                                                                ? String.valueOf(page.next()
                                                                        .getAsLong())
                                                                : null));
                                    });
                                }))));
    }

    private static Optional<Long> number(Optional<String> text) {
        if (text.isEmpty() || !text.get().matches("[0-9]{1,18}")) {
            return Optional.empty();
        }
        return Optional.of(Long.parseLong(text.get()));
    }

    // --- timelines --------------------------------------------------------------------------

    private Route timeline(String kind, String id) {
        if (!ENTITY_ID.matcher(id).matches()) {
            return json(400, new Problem("Not a " + kind + " id"));
        }
        String prefix = kind.equals("call") ? JournalViews.CALL_PREFIX : JournalViews.TASK_PREFIX;
        CompletionStage<Answer> answer = CompletableFuture.supplyAsync(
                        () -> journal().events(prefix + id), blocking)
                .thenCompose(events -> {
                    if (kind.equals("call")) {
                        return CompletableFuture.completedFuture(found(kind, views.callTimeline(id, events)));
                    }
                    return statusMessage(id, events)
                            .thenApply(message -> found(kind, views.taskTimeline(id, events, message)));
                });
        return answered(answer);
    }

    private static Answer found(String kind, Optional<Timeline> timeline) {
        return timeline.map(value -> new Answer(200, value))
                .orElseGet(() -> new Answer(404, new Problem("No " + kind + " with this id in the journal")));
    }

    /** A working task's latest progress message lives in its entity's memory, not in the journal. */
    private CompletionStage<String> statusMessage(String id, List<StoredEvent> events) {
        Optional<String> principal = events.isEmpty() ? Optional.empty() : JournalViews.principalOf(events.get(0));
        String latest = events.isEmpty() ? "" : events.get(events.size() - 1).manifest();
        if (principal.isEmpty()
                || !JournalViews.OPEN_TASK.contains(JournalViews.TASK_STATUS.getOrDefault(latest, ""))) {
            return CompletableFuture.completedFuture(null);
        }
        return NodeSharding.of(system)
                .entityRefFor(TaskEntity.ENTITY_TYPE_KEY, id)
                .<TaskEntity.Reply>ask(replyTo -> new TaskEntity.Get(principal.get(), replyTo), ENTITY_ASK_TIMEOUT)
                .handle((reply, failure) -> reply instanceof TaskEntity.TaskView view ? view.statusMessage() : null);
    }

    // --- the cancel action ------------------------------------------------------------------

    private Route cancel(String id, String operator, HttpRequest request) {
        if (!ENTITY_ID.matcher(id).matches()) {
            return json(400, new Problem("Not a task id"));
        }
        if (!request.getHeader(ACTION_HEADER)
                .map(HttpHeader::value)
                .filter("cancel"::equals)
                .isPresent()) {
            return json(403, new Problem("A cancel needs the header " + ACTION_HEADER + ": cancel"));
        }
        Optional<String> origin = request.getHeader("origin").map(HttpHeader::value);
        String host = request.getHeader("host").map(HttpHeader::value).orElse("");
        if (origin.isPresent()
                && !origin.get().equals("http://" + host)
                && !origin.get().equals("https://" + host)) {
            return json(403, new Problem("A cancel must come from the console's own origin"));
        }
        CompletionStage<Answer> answer = CompletableFuture.supplyAsync(
                        () -> journal().events(JournalViews.TASK_PREFIX + id), blocking)
                .thenCompose(events -> {
                    Optional<String> principal =
                            events.isEmpty() ? Optional.empty() : JournalViews.principalOf(events.get(0));
                    if (principal.isEmpty()) {
                        return CompletableFuture.completedFuture(
                                new Answer(404, new Problem("No task with this id in the journal")));
                    }
                    String status = JournalViews.TASK_STATUS.getOrDefault(
                            events.get(events.size() - 1).manifest(), "unknown");
                    if (!JournalViews.OPEN_TASK.contains(status)) {
                        return CompletableFuture.completedFuture(
                                new Answer(409, new Problem("The task has already ended: " + status)));
                    }
                    // The task's own principal: the operator acts for it, through the cancel tasks/cancel uses.
                    return NodeSharding.of(system)
                            .entityRefFor(TaskEntity.ENTITY_TYPE_KEY, id)
                            .<TaskEntity.Reply>ask(
                                    replyTo -> new TaskEntity.Cancel(principal.get(), replyTo), ENTITY_ASK_TIMEOUT)
                            .thenApply(reply -> {
                                if (reply instanceof TaskEntity.Acknowledged) {
                                    log.info(
                                            "console: task {} ({}) cancelled by {}",
                                            id,
                                            JournalViews.nameOf(events.get(0)),
                                            operator);
                                    return new Answer(200, new Cancelled(id, "cancelled", operator));
                                }
                                return new Answer(404, new Problem("No task with this id"));
                            });
                });
        return answered(answer);
    }

    // --- plumbing ---------------------------------------------------------------------------

    /** A status and the record to write as its JSON body. */
    private record Answer(int status, Object body) {}

    private Route withJournal(Function<JournalBrowser, Answer> read) {
        return answered(CompletableFuture.supplyAsync(() -> read.apply(journal()), blocking));
    }

    private Route answered(CompletionStage<Answer> answer) {
        CompletionStage<Answer> safe = answer.exceptionally(failure -> {
            log.warn("console request failed", failure);
            return new Answer(503, new Problem("The journal or the entity did not answer; try again"));
        });
        return onSuccess(safe, value -> json(value.status(), value.body()));
    }

    private JournalBrowser journal() {
        return ConsoleJournal.get(system)
                .browser()
                .orElseThrow(() -> new IllegalStateException("the node's journal is not known to the console yet"));
    }

    private Route json(int status, Object body) {
        return complete(StatusCodes.get(status), body, Jackson.marshaller(Json.MAPPER));
    }
}
