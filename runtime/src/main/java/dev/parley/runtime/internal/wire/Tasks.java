package dev.parley.runtime.internal.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.runtime.internal.wire.JsonRpc.ErrorObject;
import dev.parley.runtime.internal.wire.Mrtr.InputRequest;
import java.util.Map;
import java.util.Objects;

/** The tasks extension's shapes ({@code io.modelcontextprotocol/tasks}, spec §3.2–3.4). */
public final class Tasks {
    private Tasks() {}

    /**
     * {@code DetailedTask}: the task's basics, then what its status carries — the result when
     * completed, the error when failed, every outstanding request when input_required. Never a
     * {@code requestState}.
     */
    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record DetailedTask(
            String taskId,
            String status,
            String createdAt,
            String lastUpdatedAt,
            long ttlMs,
            long pollIntervalMs,
            String statusMessage,
            JsonNode result,
            ErrorObject error,
            Map<String, InputRequest> inputRequests) {
        public DetailedTask {
            Objects.requireNonNull(taskId, "taskId");
            Objects.requireNonNull(status, "status");
            Objects.requireNonNull(createdAt, "createdAt");
            Objects.requireNonNull(lastUpdatedAt, "lastUpdatedAt");
        }
    }

    /** The flat {@code CreateTaskResult}: the task's basics and {@code resultType: "task"}. */
    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record CreateTaskResult(
            String resultType,
            String taskId,
            String status,
            String createdAt,
            String lastUpdatedAt,
            long ttlMs,
            long pollIntervalMs) {
        public CreateTaskResult {
            Objects.requireNonNull(taskId, "taskId");
            Objects.requireNonNull(status, "status");
        }

        public static CreateTaskResult of(DetailedTask task) {
            return new CreateTaskResult(
                    McpNames.ResultTypes.TASK,
                    task.taskId(),
                    task.status(),
                    task.createdAt(),
                    task.lastUpdatedAt(),
                    task.ttlMs(),
                    task.pollIntervalMs());
        }
    }

    /** The {@code tasks/get} result: the detailed task with {@code resultType: "complete"}. */
    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record GetTaskResult(@JsonUnwrapped DetailedTask task, String resultType) {
        public GetTaskResult(DetailedTask task) {
            this(Objects.requireNonNull(task, "task"), McpNames.ResultTypes.COMPLETE);
        }
    }

    /** {@code notifications/tasks}: the full detailed task, tagged with the listen subscription. */
    @JsonInclude(JsonInclude.Include.NON_ABSENT)
    public record TaskNotification(
            @JsonUnwrapped DetailedTask task,
            @JsonProperty("_meta") Map<String, Object> meta) {}
}
