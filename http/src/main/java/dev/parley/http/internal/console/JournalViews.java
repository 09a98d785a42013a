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
import dev.parley.persistence.internal.TaskEvent;
import dev.parley.runtime.Json;
import dev.parley.runtime.internal.engine.AskedQuestion;
import dev.parley.runtime.internal.engine.CallHistory.RecordedAnswer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Turns journal rows into what the console shows: list items and timelines, with a principal as
 * a digest and, unless contents are shown, no answer content, argument, step value or result.
 */
final class JournalViews {
    static final String CALL_PREFIX = "ToolCall|";
    static final String TASK_PREFIX = "Task|";

    /** A call's status by its latest event's type name. */
    static final Map<String, String> CALL_STATUS = Map.of(
            "parley.call.started.v1", "waiting",
            "parley.call.input-requested.v1", "waiting",
            "parley.call.answers-received.v1", "running",
            "parley.call.step-recorded.v1", "running",
            "parley.call.completed.v1", "completed",
            "parley.call.failed.v1", "failed",
            "parley.call.became-task.v1", "became_task");

    /** A task's status by its latest event's type name. */
    static final Map<String, String> TASK_STATUS = Map.of(
            "parley.task.created.v1", "working",
            "parley.task.step-recorded.v1", "working",
            "parley.task.answers-received.v1", "working",
            "parley.task.input-requested.v1", "input_required",
            "parley.task.completed.v1", "completed",
            "parley.task.failed.v1", "failed",
            "parley.task.cancelled.v1", "cancelled");

    static final Set<String> OPEN_CALL = Set.of("waiting", "running");
    static final Set<String> OPEN_TASK = Set.of("working", "input_required");

    private final boolean showContents;

    JournalViews(boolean showContents) {
        this.showContents = showContents;
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
        List<Round> rounds = new ArrayList<>();
        List<Step> steps = new ArrayList<>();
        Outcome outcome = null;
        Instant startedAt = at(events.get(0));
        rounds.add(new Round(
                1,
                startedAt,
                List.of(),
                List.copyOf(started.steps().keySet()),
                questions(started.questions()),
                "input_required"));
        started.steps().forEach((name, value) -> steps.add(new Step(name, 1, startedAt, null, shown(value))));
        // Steps of a later round are journaled while it runs, before its answers and outcome (one write).
        List<String> pending = new ArrayList<>();
        Instant pendingSince = null;
        StoredEvent previous = events.get(0);
        for (StoredEvent stored : events.subList(1, events.size())) {
            Object event = stored.event();
            if (event instanceof CallEvent.StepRecorded step) {
                boolean sameRun = previous.event() instanceof CallEvent.StepRecorded;
                steps.add(new Step(
                        step.name(),
                        rounds.size() + 1,
                        at(stored),
                        sameRun ? stored.writtenAt() - previous.writtenAt() : null,
                        shown(step.value())));
                pending.add(step.name());
                pendingSince = pendingSince == null ? at(stored) : pendingSince;
            } else if (event instanceof CallEvent.AnswersReceived answers) {
                rounds.add(new Round(
                        answers.round() + 1,
                        pendingSince != null ? pendingSince : at(stored),
                        answers(answers.answers()),
                        List.copyOf(pending),
                        List.of(),
                        "running"));
                pending.clear();
                pendingSince = null;
            } else if (event instanceof CallEvent.InputRequested asked) {
                endRound(rounds, "input_required", questions(asked.questions()));
            } else if (event instanceof CallEvent.CallCompleted completed) {
                endRound(rounds, "completed", List.of());
                outcome = new Outcome("completed", at(stored), null, null, null, shown(completed.result()));
            } else if (event instanceof CallEvent.CallFailed failed) {
                endRound(rounds, "failed", List.of());
                outcome = new Outcome(
                        "failed",
                        at(stored),
                        failed.error().code(),
                        failed.error().message(),
                        null,
                        null);
            } else if (event instanceof CallEvent.CallBecameTask task) {
                endRound(rounds, "became_task", List.of());
                outcome = new Outcome("became_task", at(stored), null, null, task.taskId(), null);
            }
            previous = stored;
        }
        if (!pending.isEmpty()) {
            // A round is running (or its node stopped mid-run): its steps are journaled, its answers not yet.
            rounds.add(
                    new Round(rounds.size() + 1, pendingSince, List.of(), List.copyOf(pending), List.of(), "running"));
        }
        String status = CALL_STATUS.getOrDefault(events.get(events.size() - 1).manifest(), "unknown");
        return Optional.of(new Timeline(
                "call",
                id,
                started.method(),
                started.name(),
                principalDigest(started.principal()),
                status,
                startedAt,
                at(events.get(events.size() - 1)),
                null,
                showContents,
                shown(started.arguments()),
                List.copyOf(rounds),
                List.copyOf(steps),
                outcome,
                events(events)));
    }

    /** The timeline of a task; empty when its first event is not a {@code TaskCreated}. */
    Optional<Timeline> taskTimeline(String id, List<StoredEvent> events, String statusMessage) {
        if (events.isEmpty() || !(events.get(0).event() instanceof TaskEvent.TaskCreated created)) {
            return Optional.empty();
        }
        Instant startedAt = at(events.get(0));
        List<Round> rounds = new ArrayList<>();
        List<Step> steps = new ArrayList<>();
        Outcome outcome = null;
        created.steps().forEach((name, value) -> steps.add(new Step(name, 1, startedAt, null, shown(value))));
        rounds.add(new Round(
                1,
                startedAt,
                answers(created.answers()),
                List.copyOf(created.steps().keySet()),
                List.of(),
                "working"));
        StoredEvent previous = events.get(0);
        for (StoredEvent stored : events.subList(1, events.size())) {
            Round current = rounds.get(rounds.size() - 1);
            Object event = stored.event();
            if (event instanceof TaskEvent.TaskStepRecorded step) {
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
            } else if (event instanceof TaskEvent.TaskInputRequested asked) {
                endRound(rounds, "input_required", questions(asked.questions()));
                rounds.add(new Round(current.number() + 1, at(stored), List.of(), List.of(), List.of(), "working"));
            } else if (event instanceof TaskEvent.TaskAnswersReceived answers) {
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
            } else if (event instanceof TaskEvent.TaskCompleted completed) {
                endRound(rounds, "completed", List.of());
                outcome = new Outcome("completed", at(stored), null, null, null, shown(completed.result()));
            } else if (event instanceof TaskEvent.TaskFailed failed) {
                endRound(rounds, "failed", List.of());
                outcome = new Outcome(
                        "failed",
                        at(stored),
                        failed.error().code(),
                        failed.error().message(),
                        null,
                        null);
            } else if (event instanceof TaskEvent.TaskCancelled) {
                endRound(rounds, "cancelled", List.of());
                outcome = new Outcome("cancelled", at(stored), null, null, null, null);
            }
            previous = stored;
        }
        String status = TASK_STATUS.getOrDefault(events.get(events.size() - 1).manifest(), "unknown");
        return Optional.of(new Timeline(
                "task",
                id,
                created.method(),
                created.name(),
                principalDigest(created.principal()),
                status,
                startedAt,
                at(events.get(events.size() - 1)),
                OPEN_TASK.contains(status) ? statusMessage : null,
                showContents,
                shown(created.arguments()),
                List.copyOf(rounds),
                List.copyOf(steps),
                outcome,
                events(events)));
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
