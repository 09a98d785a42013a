package dev.parley.http.internal.console;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.http.internal.console.ConsoleApi.Answer;
import dev.parley.http.internal.console.ConsoleApi.Event;
import dev.parley.http.internal.console.ConsoleApi.ListItem;
import dev.parley.http.internal.console.ConsoleApi.Outcome;
import dev.parley.http.internal.console.ConsoleApi.Question;
import dev.parley.http.internal.console.ConsoleApi.Round;
import dev.parley.http.internal.console.ConsoleApi.Step;
import dev.parley.http.internal.console.ConsoleApi.Timeline;
import dev.parley.persistence.internal.CallEvent;
import dev.parley.persistence.internal.JournalBrowser.EntityRow;
import dev.parley.persistence.internal.JournalBrowser.StoredEvent;
import dev.parley.persistence.internal.JournalEvent;
import dev.parley.persistence.internal.TaskEvent;
import dev.parley.runtime.Json;
import dev.parley.runtime.internal.engine.AskedQuestion;
import dev.parley.runtime.internal.engine.CallHistory.RecordedAnswer;
import dev.parley.runtime.internal.wire.JsonRpc.ErrorObject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Turns journal rows into what the console shows: list items and timelines, with a principal as
 * a digest and, unless contents are shown, no answer content, argument, step value or result.
 */
final class JournalViews {
    static final String CALL_PREFIX = "ToolCall|";
    static final String TASK_PREFIX = "Task|";

    /** A call's status by its latest event's type name (from the journal's vocabulary). */
    static final Map<String, String> CALL_STATUS = statusLabels(CallEvent.TYPES, CallEvent.Status::label);

    /** A task's status by its latest event's type name (from the journal's vocabulary). */
    static final Map<String, String> TASK_STATUS = statusLabels(TaskEvent.TYPES, TaskEvent.Status::label);

    static final Set<String> OPEN_CALL = Stream.of(CallEvent.Status.values())
            .filter(status -> status.open)
            .map(CallEvent.Status::label)
            .collect(Collectors.toUnmodifiableSet());
    static final Set<String> OPEN_TASK = Stream.of(TaskEvent.Status.values())
            .filter(status -> status.open)
            .map(TaskEvent.Status::label)
            .collect(Collectors.toUnmodifiableSet());

    private final boolean showContents;

    JournalViews(boolean showContents) {
        this.showContents = showContents;
    }

    private static <S extends Enum<S>> Map<String, String> statusLabels(
            List<JournalEvent.Type<S>> types, Function<S, String> label) {
        return types.stream()
                .collect(Collectors.toUnmodifiableMap(
                        JournalEvent.Type::storedName, type -> label.apply(type.statusAfter())));
    }

    /** Type names whose latest event gives one of {@code statuses}. */
    static Set<String> manifestsFor(Map<String, String> statusByManifest, Set<String> statuses) {
        Set<String> manifests = new LinkedHashSet<>();
        statusByManifest.forEach((manifest, status) -> {
            if (statuses.contains(status)) {
                manifests.add(manifest);
            }
        });
        return manifests;
    }

    /** A principal as the console shows it: a short digest, the same for the same principal. */
    static String principalDigest(String principal) {
        return "p-" + Json.sha256Hex(principal).substring(0, 12);
    }

    static String nameOf(StoredEvent first) {
        if (first.event() instanceof CallEvent.CallStarted started) {
            return started.name();
        }
        if (first.event() instanceof TaskEvent.TaskCreated created) {
            return created.name();
        }
        return null;
    }

    static Optional<String> principalOf(StoredEvent first) {
        if (first.event() instanceof CallEvent.CallStarted started) {
            return Optional.of(started.principal());
        }
        if (first.event() instanceof TaskEvent.TaskCreated created) {
            return Optional.of(created.principal());
        }
        return Optional.empty();
    }

    ListItem item(EntityRow row, Map<String, String> statusByManifest, Instant now) {
        String method;
        String principal;
        if (row.first().event() instanceof CallEvent.CallStarted started) {
            method = started.method();
            principal = started.principal();
        } else if (row.first().event() instanceof TaskEvent.TaskCreated created) {
            method = created.method();
            principal = created.principal();
        } else {
            method = null;
            principal = "";
        }
        Instant startedAt = Instant.ofEpochMilli(row.first().writtenAt());
        return new ListItem(
                row.entityId(),
                method,
                nameOf(row.first()),
                statusByManifest.getOrDefault(row.latestManifest(), "unknown"),
                principalDigest(principal),
                startedAt,
                Instant.ofEpochMilli(row.latestWrittenAt()),
                Math.max(0, Duration.between(startedAt, now).toSeconds()),
                row.events());
    }

    /** The timeline of a call; empty when its first event is not a {@code CallStarted}. */
    Optional<Timeline> callTimeline(String id, List<StoredEvent> events) {
        if (events.isEmpty() || !(events.get(0).event() instanceof CallEvent.CallStarted started)) {
            return Optional.empty();
        }
        CallRounds rounds = new CallRounds();
        events.forEach(rounds::add);
        if (!rounds.pending.isEmpty()) {
            // A round is running (or its node stopped mid-run): its steps are journaled, its answers not yet.
            rounds.rounds.add(new Round(
                    rounds.rounds.size() + 1,
                    rounds.pendingSince,
                    List.of(),
                    List.copyOf(rounds.pending),
                    List.of(),
                    "running"));
        }
        String status = CALL_STATUS.getOrDefault(events.get(events.size() - 1).manifest(), "unknown");
        return Optional.of(new Timeline(
                "call",
                id,
                started.method(),
                started.name(),
                principalDigest(started.principal()),
                status,
                at(events.get(0)),
                at(events.get(events.size() - 1)),
                null,
                showContents,
                shown(started.arguments()),
                List.copyOf(rounds.rounds),
                List.copyOf(rounds.steps),
                rounds.outcome,
                events(events)));
    }

    /** A call's rounds, steps and outcome, event by event. */
    private final class CallRounds implements CallEvent.Visitor {
        final List<Round> rounds = new ArrayList<>();
        final List<Step> steps = new ArrayList<>();
        Outcome outcome;
        /** Steps of a later round are journaled while it runs, before its answers and outcome (one write). */
        final List<String> pending = new ArrayList<>();

        Instant pendingSince;
        private StoredEvent previous;
        private StoredEvent stored;

        void add(StoredEvent next) {
            stored = next;
            ((CallEvent) next.event()).accept(this);
            previous = next;
        }

        @Override
        public void visit(CallEvent.CallStarted started) {
            Instant startedAt = at(stored);
            rounds.add(new Round(
                    1,
                    startedAt,
                    List.of(),
                    List.copyOf(started.steps().keySet()),
                    questions(started.questions()),
                    "input_required"));
            started.steps().forEach((name, value) -> steps.add(new Step(name, 1, startedAt, null, shown(value))));
        }

        @Override
        public void visit(CallEvent.StepRecorded step) {
            boolean sameRun = previous.event() instanceof CallEvent.StepRecorded;
            steps.add(new Step(
                    step.name(),
                    rounds.size() + 1,
                    at(stored),
                    sameRun ? stored.writtenAt() - previous.writtenAt() : null,
                    shown(step.value())));
            pending.add(step.name());
            pendingSince = pendingSince == null ? at(stored) : pendingSince;
        }

        @Override
        public void visit(CallEvent.AnswersReceived answers) {
            rounds.add(new Round(
                    answers.round() + 1,
                    pendingSince != null ? pendingSince : at(stored),
                    answers(answers.answers()),
                    List.copyOf(pending),
                    List.of(),
                    "running"));
            pending.clear();
            pendingSince = null;
        }

        @Override
        public void visit(CallEvent.InputRequested asked) {
            endRound(rounds, "input_required", questions(asked.questions()));
        }

        @Override
        public void visit(CallEvent.CallCompleted completed) {
            endRound(rounds, "completed", List.of());
            outcome = new Outcome("completed", at(stored), null, null, null, shown(completed.result()));
        }

        @Override
        public void visit(CallEvent.CallFailed failed) {
            endRound(rounds, "failed", List.of());
            outcome = failedOutcome(at(stored), failed.error());
        }

        @Override
        public void visit(CallEvent.CallBecameTask task) {
            endRound(rounds, "became_task", List.of());
            outcome = new Outcome("became_task", at(stored), null, null, task.taskId(), null);
        }
    }

    /** The timeline of a task; empty when its first event is not a {@code TaskCreated}. */
    Optional<Timeline> taskTimeline(String id, List<StoredEvent> events, String statusMessage) {
        if (events.isEmpty() || !(events.get(0).event() instanceof TaskEvent.TaskCreated created)) {
            return Optional.empty();
        }
        TaskRounds rounds = new TaskRounds();
        events.forEach(rounds::add);
        String status = TASK_STATUS.getOrDefault(events.get(events.size() - 1).manifest(), "unknown");
        return Optional.of(new Timeline(
                "task",
                id,
                created.method(),
                created.name(),
                principalDigest(created.principal()),
                status,
                at(events.get(0)),
                at(events.get(events.size() - 1)),
                OPEN_TASK.contains(status) ? statusMessage : null,
                showContents,
                shown(created.arguments()),
                List.copyOf(rounds.rounds),
                List.copyOf(rounds.steps),
                rounds.outcome,
                events(events)));
    }

    /** A task's rounds (a round ends when the run asks), steps and outcome, event by event. */
    private final class TaskRounds implements TaskEvent.Visitor {
        final List<Round> rounds = new ArrayList<>();
        final List<Step> steps = new ArrayList<>();
        Outcome outcome;
        private StoredEvent previous;
        private StoredEvent stored;

        void add(StoredEvent next) {
            stored = next;
            ((TaskEvent) next.event()).accept(this);
            previous = next;
        }

        private Round current() {
            return rounds.get(rounds.size() - 1);
        }

        @Override
        public void visit(TaskEvent.TaskCreated created) {
            Instant startedAt = at(stored);
            created.steps().forEach((name, value) -> steps.add(new Step(name, 1, startedAt, null, shown(value))));
            rounds.add(new Round(
                    1,
                    startedAt,
                    answers(created.answers()),
                    List.copyOf(created.steps().keySet()),
                    List.of(),
                    "working"));
        }

        @Override
        public void visit(TaskEvent.TaskStepRecorded step) {
            Round current = current();
            // The run starts when the task is created or its answers arrive: a step's duration is known.
            boolean sameRun = !(previous.event() instanceof TaskEvent.TaskInputRequested);
            steps.add(new Step(
                    step.name(),
                    current.number(),
                    at(stored),
                    sameRun ? stored.writtenAt() - previous.writtenAt() : null,
                    shown(step.value())));
            List<String> names = new ArrayList<>(current.steps());
            names.add(step.name());
            rounds.set(
                    rounds.size() - 1,
                    new Round(
                            current.number(),
                            current.at(),
                            current.answers(),
                            List.copyOf(names),
                            current.questions(),
                            current.ended()));
        }

        @Override
        public void visit(TaskEvent.TaskInputRequested asked) {
            int number = current().number();
            endRound(rounds, "input_required", questions(asked.questions()));
            rounds.add(new Round(number + 1, at(stored), List.of(), List.of(), List.of(), "working"));
        }

        @Override
        public void visit(TaskEvent.TaskAnswersReceived answers) {
            Round current = current();
            List<Answer> all = new ArrayList<>(current.answers());
            all.addAll(answers(answers.answers()));
            rounds.set(
                    rounds.size() - 1,
                    new Round(
                            current.number(),
                            current.answers().isEmpty() ? at(stored) : current.at(),
                            List.copyOf(all),
                            current.steps(),
                            current.questions(),
                            current.ended()));
        }

        @Override
        public void visit(TaskEvent.TaskCompleted completed) {
            endRound(rounds, "completed", List.of());
            outcome = new Outcome("completed", at(stored), null, null, null, shown(completed.result()));
        }

        @Override
        public void visit(TaskEvent.TaskFailed failed) {
            endRound(rounds, "failed", List.of());
            outcome = failedOutcome(at(stored), failed.error());
        }

        @Override
        public void visit(TaskEvent.TaskCancelled cancelled) {
            endRound(rounds, "cancelled", List.of());
            outcome = new Outcome("cancelled", at(stored), null, null, null, null);
        }
    }

    private static Outcome failedOutcome(Instant at, ErrorObject error) {
        return new Outcome("failed", at, error.code(), error.message(), null, null);
    }

    private static void endRound(List<Round> rounds, String ended, List<Question> questions) {
        Round last = rounds.get(rounds.size() - 1);
        rounds.set(
                rounds.size() - 1, new Round(last.number(), last.at(), last.answers(), last.steps(), questions, ended));
    }

    private static List<Event> events(List<StoredEvent> events) {
        List<Event> all = new ArrayList<>();
        long previous = events.get(0).writtenAt();
        for (StoredEvent stored : events) {
            all.add(new Event(stored.sequenceNumber(), at(stored), stored.manifest(), stored.writtenAt() - previous));
            previous = stored.writtenAt();
        }
        return all;
    }

    private static List<Question> questions(List<AskedQuestion> asked) {
        return asked.stream()
                .map(question -> {
                    JsonNode params = question.request().params();
                    return new Question(
                            question.key(), question.request().method(), text(params, "mode"), text(params, "message"));
                })
                .toList();
    }

    private List<Answer> answers(Map<String, RecordedAnswer> answers) {
        List<Answer> shown = new ArrayList<>();
        answers.forEach((key, recorded) -> {
            JsonNode response = recorded.response();
            String action = text(response, "action");
            JsonNode content = response == null ? null : response.has("action") ? response.get("content") : response;
            boolean hasContent = content != null && !content.isNull() && !content.isMissingNode();
            shown.add(new Answer(
                    key,
                    action != null ? action : "response",
                    showContents && hasContent ? content : null,
                    !showContents && hasContent));
        });
        return shown;
    }

    private JsonNode shown(JsonNode value) {
        return showContents ? value : null;
    }

    private static String text(JsonNode node, String field) {
        return node != null && node.path(field).isTextual() ? node.get(field).asText() : null;
    }

    private static Instant at(StoredEvent event) {
        return Instant.ofEpochMilli(event.writtenAt());
    }
}
