package dev.parley.testkit;

import java.util.List;
import java.util.stream.Collectors;

/**
 * What the replay check found: nothing (the recorded call replays), or each divergence in order;
 * and, as notes that are no problem, each form field the code marks as no secret with its reason.
 */
public record ReplayReport(String callId, String target, List<Problem> problems, List<String> notSecrets) {

    public ReplayReport {
        problems = List.copyOf(problems);
        notSecrets = List.copyOf(notSecrets);
    }

    public ReplayReport(String callId, String target, List<Problem> problems) {
        this(callId, target, problems, List.of());
    }

    public enum Kind {
        /** A question with a recorded answer is asked differently now (message, schema, URL): it will be asked again. */
        QUESTION_CHANGED,
        /** The code asks a question the recorded call never asked at this point. */
        NEW_QUESTION,
        /** A recorded step is reached at another position than it was journaled at. */
        STEP_MOVED,
        /** The code reaches a step the recorded call never journaled where the recording says it did not. */
        NEW_STEP,
        /** A recorded step is no longer reached. */
        MISSING_STEP,
        /** The call ends differently: it asks where it had a result, or the reverse, or it fails now. */
        OUTCOME_CHANGED,
        /** The code builds a form field that asks for a secret, or an unsafe URL question: the call ends with an error. */
        UNSAFE_QUESTION
    }

    public record Problem(Kind kind, String detail) {
        @Override
        public String toString() {
            return kind + ": " + detail;
        }
    }

    /** True when the recorded call replays on today's code with no divergence. */
    public boolean deterministic() {
        return problems.isEmpty();
    }

    /** Fails with every problem listed unless the call replays. */
    public void assertDeterministic() {
        if (!deterministic()) {
            throw new AssertionError(toString());
        }
    }

    @Override
    public String toString() {
        String notes = notSecrets.stream().map(note -> "\n  note: " + note).collect(Collectors.joining());
        if (problems.isEmpty()) {
            return "call " + callId + " (" + target + ") replays on today's code" + notes;
        }
        return "call " + callId + " (" + target + ") does not replay on today's code:\n"
                + problems.stream().map(p -> "  - " + p).collect(Collectors.joining("\n")) + notes;
    }
}
