package dev.parley.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.runtime.CallTarget;
import dev.parley.runtime.ClientCapabilities;
import dev.parley.runtime.Json;
import dev.parley.runtime.McpServerDefinition;
import dev.parley.runtime.internal.engine.AskedQuestion;
import dev.parley.runtime.internal.engine.CallHistory.RecordedAnswer;
import dev.parley.runtime.internal.engine.CallRecording;
import dev.parley.runtime.internal.engine.Cancellation;
import dev.parley.runtime.internal.engine.ReplayEngine;
import dev.parley.runtime.internal.engine.RunEnvironment;
import dev.parley.runtime.internal.engine.RunOutcome;
import dev.parley.runtime.internal.engine.StepJournal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The replay check: runs today's code of a tool over a call's recorded history (exported from
 * a node with {@code GET /calls/{id}/history} on the management port) and reports every place
 * where the code no longer takes the recorded path: a question asked differently (its
 * fingerprint changed), a question that is new, a step that moved, appeared or vanished, an
 * ending that changed, a question that breaks the elicitation safety rules. No step action
 * runs: a step the recording does not have stops the run before its action. The report also
 * lists the form fields the code marks as no secret, with their reasons.
 *
 * <p>Run it in a unit test over the recordings of calls that wait in production before you
 * deploy a changed tool: a divergence means those calls would ask again, or do something else
 * than their first rounds decided.
 */
public final class ReplayCheck {
    /** The seed of {@code ctx.randomUuid()} and step keys: journaled when first needed, not a step of the code. */
    private static final String SEED_STEP = "parley.seed";

    private static final ClientCapabilities EVERYTHING =
            ClientCapabilities.of(Json.parse("{\"elicitation\":{\"form\":{},\"url\":{}},\"sampling\":{},\"roots\":{},"
                    + "\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}"));

    private ReplayCheck() {}

    /** Reads an exported recording (the JSON of {@code GET /calls/{id}/history}). */
    public static CallRecording read(String json) {
        try {
            CallRecording recording = Json.MAPPER.readValue(json, CallRecording.class);
            if (recording.format() != CallRecording.FORMAT) {
                throw new IllegalArgumentException("recording format " + recording.format() + " is not "
                        + CallRecording.FORMAT + "; export it again with this version");
            }
            return recording;
        } catch (IOException e) {
            throw new IllegalArgumentException("not a call recording: " + e.getMessage(), e);
        }
    }

    public static CallRecording read(Path file) {
        try {
            return read(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Checks the recording against the tool, prompt or resource of {@code server} it names. */
    public static ReplayReport check(McpServerDefinition server, CallRecording recording) {
        CallTarget target = server.target(recording.method(), recording.name()).orElse(null);
        if (target == null) {
            return new ReplayReport(
                    recording.id(),
                    recording.method() + " " + recording.name(),
                    List.of(new ReplayReport.Problem(
                            ReplayReport.Kind.OUTCOME_CHANGED,
                            "the server no longer has " + recording.method() + " " + recording.name()
                                    + ": the waiting call cannot go on")));
        }
        return check(target, recording);
    }

    /** Checks the recording against {@code target}. */
    public static ReplayReport check(CallTarget target, CallRecording recording) {
        ExecutorService executor = Executors.newSingleThreadExecutor(work -> {
            Thread thread = new Thread(work, "parley-replay-check");
            thread.setDaemon(true);
            return thread;
        });
        try {
            return new Run(new SafetyWatch(target), recording).check(new ReplayEngine(executor));
        } finally {
            executor.shutdownNow();
        }
    }

    /** One check: what the code reaches, compared with what the recording says, as it runs. */
    private static final class Run {
        private final SafetyWatch target;
        private final CallRecording recording;
        private final List<String> recordedSteps = new ArrayList<>();
        private final List<ReplayReport.Problem> problems = new ArrayList<>();
        private final List<String> reached = new ArrayList<>();
        /** Set when the run got past the recording of a call still in progress: the live run is there. */
        private volatile boolean endOfRecording;

        Run(SafetyWatch target, CallRecording recording) {
            this.target = target;
            this.recording = recording;
            recording.steps().stream()
                    .map(CallRecording.RecordedStep::name)
                    .filter(name -> !SEED_STEP.equals(name))
                    .forEach(recordedSteps::add);
        }

        ReplayReport check(ReplayEngine engine) {
            RunEnvironment.TaskMode mode = recording.kind() == CallRecording.Kind.TASK
                    ? RunEnvironment.TaskMode.TASK
                    : recording.status() == CallRecording.Status.BECAME_TASK
                            ? RunEnvironment.TaskMode.MAY_BECOME_TASK
                            : RunEnvironment.TaskMode.SYNCHRONOUS;
            RunEnvironment environment = new RunEnvironment(
                    "replay-check", EVERYTHING, RunEnvironment.RequestSink.NONE, new Cancellation(), mode);
            StepJournal journal = new StepJournal() {
                @Override
                public void record(String name, JsonNode value) {
                    // Never reached: reached() stops every unrecorded step first.
                }

                @Override
                public void reached(String name, boolean recorded) {
                    onStep(name, recorded);
                }
            };
            RunOutcome outcome;
            try {
                outcome = engine.run(
                                target,
                                recording.arguments() == null ? Json.object() : recording.arguments(),
                                environment,
                                recording.history(),
                                journal)
                        .toCompletableFuture()
                        .get(60, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("the replay run did not end: " + e, e);
            }
            if (target.refused() != null) {
                problems.add(
                        new ReplayReport.Problem(ReplayReport.Kind.UNSAFE_QUESTION, "the code " + target.refusal()));
            } else {
                compareEnding(outcome);
            }
            return new ReplayReport(
                    recording.id(), recording.method() + " " + recording.name(), problems, target.notSecrets());
        }

        private synchronized void onStep(String name, boolean recorded) {
            if (SEED_STEP.equals(name)) {
                return;
            }
            int position = reached.size();
            reached.add(name);
            if (!recorded) {
                // A run in progress (or a cancelled task) stopped somewhere after its last journaled step.
                boolean inProgress = recording.status() == CallRecording.Status.WORKING
                        || recording.status() == CallRecording.Status.CANCELLED;
                if (inProgress && position >= recordedSteps.size()) {
                    endOfRecording = true; // where the live run is now: nothing to compare beyond
                } else {
                    problems.add(new ReplayReport.Problem(
                            ReplayReport.Kind.NEW_STEP,
                            "step #" + (position + 1) + " is now '"
                                    + name + "', which the recorded call never journaled"
                                    + (position < recordedSteps.size()
                                            ? " (it journaled '" + recordedSteps.get(position) + "' there)"
                                            : "")));
                }
                // Stop before the action: the check must not charge a card.
                throw new StopReplay();
            }
            if (position >= recordedSteps.size() || !recordedSteps.get(position).equals(name)) {
                problems.add(new ReplayReport.Problem(
                        ReplayReport.Kind.STEP_MOVED,
                        "step '" + name + "' is now step #" + (position + 1) + "; the recorded call journaled it as #"
                                + (recordedSteps.indexOf(name) + 1)));
            }
        }

        private void compareEnding(RunOutcome outcome) {
            boolean stopped =
                    !problems.isEmpty() && problems.get(problems.size() - 1).kind() == ReplayReport.Kind.NEW_STEP;
            if (stopped || endOfRecording) {
                return; // the run was stopped at a step: its ending says nothing
            }
            CallRecording.Status recorded = recording.status();
            int questionProblems = problems.size();
            if (outcome instanceof RunOutcome.NeedsInput needs) {
                compareQuestions(needs.questions());
            }
            // A run that stops at a changed or new question does not get to the later steps: that is
            // the question's problem, not a missing step.
            List<String> missing = recordedSteps.stream()
                    .filter(name -> !reached.contains(name))
                    .toList();
            if (!missing.isEmpty() && problems.size() == questionProblems) {
                problems.add(new ReplayReport.Problem(
                        ReplayReport.Kind.MISSING_STEP, "recorded steps " + missing + " are no longer reached"));
            }
            if (outcome instanceof RunOutcome.NeedsInput needs) {
                if (recorded == CallRecording.Status.COMPLETED || recorded == CallRecording.Status.FAILED) {
                    problems.add(new ReplayReport.Problem(
                            ReplayReport.Kind.OUTCOME_CHANGED,
                            "the recorded call ended " + recorded + "; now it asks "
                                    + needs.questions().stream()
                                            .map(AskedQuestion::key)
                                            .toList()));
                }
            } else if (outcome instanceof RunOutcome.Completed completed) {
                if (recorded == CallRecording.Status.INPUT_REQUIRED) {
                    problems.add(new ReplayReport.Problem(
                            ReplayReport.Kind.OUTCOME_CHANGED,
                            "the recorded call waits for " + openKeys() + "; now it completes without them"));
                } else if (recorded == CallRecording.Status.FAILED) {
                    problems.add(new ReplayReport.Problem(
                            ReplayReport.Kind.OUTCOME_CHANGED, "the recorded call failed; now it " + "completes"));
                } else if (completed.result().path("isError").asBoolean(false)
                        && (recording.result() == null
                                || !recording.result().path("isError").asBoolean(false))) {
                    problems.add(new ReplayReport.Problem(
                            ReplayReport.Kind.OUTCOME_CHANGED,
                            "the re-run ends with a tool " + "error: "
                                    + completed.result().path("content")));
                }
            } else if (outcome instanceof RunOutcome.Failed failed && recorded != CallRecording.Status.FAILED) {
                problems.add(new ReplayReport.Problem(
                        ReplayReport.Kind.OUTCOME_CHANGED,
                        "the re-run fails with " + failed.error().code() + " "
                                + failed.error().message()));
            } else if (outcome instanceof RunOutcome.BecameTask && recorded != CallRecording.Status.BECAME_TASK) {
                problems.add(new ReplayReport.Problem(
                        ReplayReport.Kind.OUTCOME_CHANGED,
                        "the re-run becomes a task where " + "the recorded call " + recorded));
            }
        }

        /** The questions the re-run stops at, against the answers and open questions of the recording. */
        private void compareQuestions(List<AskedQuestion> asked) {
            Map<String, AskedQuestion> lastAsked = new LinkedHashMap<>();
            recording.questions().forEach(question -> lastAsked.put(question.key(), question));
            Set<String> open = openKeys();
            for (AskedQuestion question : asked) {
                RecordedAnswer answer = recording.answers().get(question.key());
                AskedQuestion before = lastAsked.get(question.key());
                if (answer != null && !answer.fingerprint().equals(question.fingerprint())) {
                    problems.add(new ReplayReport.Problem(
                            ReplayReport.Kind.QUESTION_CHANGED,
                            "question '" + question.key()
                                    + "' was answered, but is asked differently now (fingerprint "
                                    + abbreviated(answer.fingerprint())
                                    + " -> " + abbreviated(question.fingerprint()) + ")" + difference(before, question)
                                    + ": the call will ask it again"));
                } else if (answer == null && open.contains(question.key())) {
                    if (!before.fingerprint().equals(question.fingerprint())) {
                        problems.add(new ReplayReport.Problem(
                                ReplayReport.Kind.QUESTION_CHANGED,
                                "open question '"
                                        + question.key() + "' is asked differently now (fingerprint "
                                        + abbreviated(before.fingerprint())
                                        + " -> " + abbreviated(question.fingerprint()) + ")"
                                        + difference(before, question)
                                        + ": the waiting client's answer will not count"));
                    }
                } else if (answer == null) {
                    problems.add(new ReplayReport.Problem(
                            ReplayReport.Kind.NEW_QUESTION,
                            "the code now asks '" + question.key() + "', which the recorded call never asked here"));
                }
            }
        }

        /** Questions the recording asked last and has no answer for: what the waiting client sees. */
        private Set<String> openKeys() {
            Set<String> open = new java.util.LinkedHashSet<>();
            recording.questions().forEach(question -> {
                if (!recording.answers().containsKey(question.key())) {
                    open.add(question.key());
                }
            });
            return open;
        }

        private static String difference(AskedQuestion before, AskedQuestion now) {
            if (before == null) {
                return "";
            }
            return "; was " + Json.write(before.request().params()) + ", now "
                    + Json.write(now.request().params());
        }

        private static String abbreviated(String fingerprint) {
            return fingerprint.length() > 12 ? fingerprint.substring(0, 12) : fingerprint;
        }
    }

    /** Stops a replay run at a step the recording does not have, before its action runs. */
    private static final class StopReplay extends Error {
        StopReplay() {
            super(null, null, false, false);
        }
    }
}
