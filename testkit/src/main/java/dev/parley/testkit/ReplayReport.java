package dev.parley.testkit;

import java.util.List;
import java.util.stream.Collectors;

/** What the replay check found: nothing (the recorded call replays), or each divergence in order. */
public record ReplayReport(String callId, String target, List<Problem> problems) {

    public ReplayReport {
        problems = List.copyOf(problems);
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
        OUTCOME_CHANGED
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
        if (problems.isEmpty()) {
            return "call " + callId + " (" + target + ") replays on today's code";
        }
        return "call " + callId + " (" + target + ") does not replay on today's code:\n"
                + problems.stream().map(p -> "  - " + p).collect(Collectors.joining("\n"));
    }
}
