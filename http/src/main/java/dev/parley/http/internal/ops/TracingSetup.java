package dev.parley.http.internal.ops;

import com.typesafe.config.Config;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which OpenTelemetry a node traces with. Export is off (a no-op, nothing recorded) unless
 * {@code parley.tracing.enabled} is on or the standard variables name an exporter
 * ({@code OTEL_TRACES_EXPORTER}, {@code OTEL_EXPORTER_OTLP_ENDPOINT} or
 * {@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT}); then the SDK is configured from the standard
 * {@code OTEL_*} variables (OTLP by default). Metrics and logs are not exported this way:
 * Prometheus scrapes /metrics and logs go to the console.
 */
public final class TracingSetup {
    private static final Logger log = LoggerFactory.getLogger(TracingSetup.class);

    private TracingSetup() {}

    public static boolean enabled(Config config, Map<String, String> environment) {
        String exporter = environment.get("OTEL_TRACES_EXPORTER");
        return config.getBoolean("parley.tracing.enabled")
                || (exporter != null && !exporter.equals("none"))
                || environment.containsKey("OTEL_EXPORTER_OTLP_ENDPOINT")
                || environment.containsKey("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
    }

    /** The SDK from the OTEL_* variables; the caller closes it (on CoordinatedShutdown: no JVM hook of its own). */
    public static OpenTelemetrySdk fromEnvironment() {
        OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder()
                .addPropertiesSupplier(() -> Map.of(
                        "otel.metrics.exporter", "none", "otel.logs.exporter", "none", "otel.service.name", "parley"))
                .disableShutdownHook()
                .build()
                .getOpenTelemetrySdk();
        log.info("tracing on: spans are exported as the OTEL_* variables say");
        return sdk;
    }

    /** No tracing: spans are no-ops. */
    public static OpenTelemetry off() {
        return OpenTelemetry.noop();
    }
}
