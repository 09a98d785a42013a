package dev.parley.benchmarks.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The load generator's command line, checked and bounded: every run has a duration or a
 * request count (both capped), a capped warm-up and a bounded number of rounds and polls per flow.
 */
public record LoadOptions(
        URI url,
        FlowKind flow,
        String tool,
        ObjectNode arguments,
        ObjectNode answers,
        String action,
        Protocol protocol,
        List<Integer> concurrency,
        Duration duration,
        Long requests,
        Duration warmup,
        Duration timeout,
        Duration flowTimeout,
        int maxRounds,
        Duration defaultPollInterval,
        ClientKind client,
        List<String> allowHosts,
        Map<String, String> headers,
        Path json,
        Path html,
        boolean progress,
        List<Double> rates,
        boolean pollNow,
        Long serverPid) {

    public static final Duration MAX_DURATION = Duration.ofHours(1);
    public static final long MAX_REQUESTS = 10_000_000L;
    public static final Duration MAX_WARMUP = Duration.ofMinutes(10);
    public static final int MAX_CONCURRENCY = 4096;
    public static final int MAX_LEVELS = 16;
    public static final int MAX_ROUNDS = 100;
    public static final Duration MAX_TIMEOUT = Duration.ofMinutes(5);
    public static final double MAX_RATE = 1_000_000;

    /** Open loop (--rate): flows start at a constant rate whatever the server's latency; else closed loop. */
    public boolean openLoop() {
        return !rates.isEmpty();
    }

    /** The demo server's one-round tool and its arguments. */
    public static final String DEFAULT_CALL_TOOL = "check_availability";

    public static final String DEFAULT_CALL_ARGUMENTS = "{\"date\":\"2026-12-20\"}";
    /** The demo server's two-round tool (asks for {@code currency}, an enum) and its arguments. */
    public static final String DEFAULT_MRTR_TOOL = "create_invoice";

    public static final String DEFAULT_MRTR_ARGUMENTS = "{\"client\":\"x\",\"amount\":1}";

    public enum FlowKind {
        CALL,
        MRTR,
        TASK
    }

    public enum Protocol {
        V2026_07_28("2026-07-28"),
        V2025_11_25("2025-11-25");

        public final String wire;

        Protocol(String wire) {
            this.wire = wire;
        }

        static Protocol of(String text) {
            for (Protocol protocol : values()) {
                if (protocol.wire.equals(text)) {
                    return protocol;
                }
            }
            throw new UsageException("--protocol must be 2026-07-28 or 2025-11-25, not " + text);
        }
    }

    public enum ClientKind {
        SOCKET,
        JDK
    }

    /** A command line that cannot run; the message says why. */
    public static final class UsageException extends RuntimeException {
        public UsageException(String message) {
            super(message);
        }
    }

    public static final String USAGE = """
      usage: java -jar parley-load.jar --url URL (--duration D | --requests N) [options]
             java -jar parley-load.jar baseline [--port P] [--host H] [--journal DIR [--store h2|sqlite]]

      target
        --url URL              the MCP endpoint (default http://127.0.0.1:8080/mcp)
        --allow-host HOST      allow a target that is not loopback (repeatable; comma lists)
        --header 'Name: value' extra request header (repeatable), e.g. Authorization
        --protocol V           2026-07-28 (default: stateless, _meta on every request) or
                               2025-11-25 (initialize + Mcp-Session-Id; --flow call, or mrtr:
                               questions as elicitation/create on the call's stream)
        --client socket|jdk    plain keep-alive sockets, one per worker (default, lighter), or
                               java.net.http.HttpClient HTTP/1.1 (https needs jdk)
      what each flow does
        --flow call|mrtr|task  call: one tools/call; mrtr: answer every input_required until
                               complete; task: create a task, poll tasks/get, answer with
                               tasks/update until it ends (default call)
        --tool NAME            default check_availability (call), create_invoice (mrtr)
        --args JSON            tool arguments; default {"date":"2026-12-20"} (call),
                               {"client":"x","amount":1} (mrtr)
        --answers JSON         values for form elicitations, by property name, e.g.
                               {"currency":"CHF"}; missing ones come from the schema's
                               default, first enum value or a typed placeholder
        --action A             accept (default), decline or cancel: how elicitations are answered
        --max-rounds N         input_required rounds per flow before it counts as an error (10)
        --flow-timeout D       longest time one flow may take, polls included (60s)
        --default-poll D       tasks/get interval when the server gives no pollIntervalMs (200ms)
        --poll-now             the first tasks/get right after the create, without waiting
      how much
        --concurrency LIST     workers, each a closed loop; several levels: 1,8,64 (default 8)
        --rate LIST            open loop: flows started per second whatever the latency, e.g.
                               1000/s or levels 500,1000,2000/s; each flow's latency counts from
                               its intended start, so queueing shows; --concurrency N is then
                               the most flows in flight (default 256)
        --duration D           measured time per level, e.g. 30s, 2m (at most 1h)
        --requests N           measured flows per level (at most 10000000)
        --warmup D             unmeasured time before each level (default 5s, at most 10m)
        --timeout D            per request (default 30s)
      output
        --json FILE            results as JSON
        --html FILE            a report with charts (inline SVG)
        --server-pid PID       the server's process (same machine, Linux): its CPU per level,
                               per flow, per request and per request kind
        --no-progress          no live progress line (it only shows on a terminal anyway)
      """;

    public static LoadOptions parse(String... args) {
        String url = "http://127.0.0.1:8080/mcp";
        FlowKind flow = FlowKind.CALL;
        String tool = null;
        String arguments = null;
        String answers = "{}";
        String action = "accept";
        Protocol protocol = Protocol.V2026_07_28;
        List<Integer> concurrency = List.of(8);
        Duration duration = null;
        Long requests = null;
        Duration warmup = Duration.ofSeconds(5);
        Duration timeout = Duration.ofSeconds(30);
        Duration flowTimeout = Duration.ofSeconds(60);
        int maxRounds = 10;
        Duration defaultPoll = Duration.ofMillis(200);
        ClientKind client = null;
        List<String> allowHosts = new ArrayList<>();
        Map<String, String> headers = new LinkedHashMap<>();
        Path json = null;
        Path html = null;
        boolean progress = true;
        List<Double> rates = List.of();
        boolean pollNow = false;
        Long serverPid = null;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                value = arg.substring(eq + 1);
                arg = arg.substring(0, eq);
            }
            if (arg.equals("--no-progress")) {
                progress = false;
                continue;
            }
            if (arg.equals("--poll-now")) {
                pollNow = true;
                continue;
            }
            if (arg.equals("-h") || arg.equals("--help")) {
                throw new UsageException("");
            }
            if (value == null) {
                if (i + 1 >= args.length) {
                    throw new UsageException("missing value for " + arg);
                }
                value = args[++i];
            }
            switch (arg) {
                case "--url" -> url = value;
                case "--flow" ->
                    flow = switch (value.toLowerCase(Locale.ROOT)) {
                        case "call" -> FlowKind.CALL;
                        case "mrtr" -> FlowKind.MRTR;
                        case "task" -> FlowKind.TASK;
                        default -> throw new UsageException("--flow must be call, mrtr or task, not " + value);
                    };
                case "--tool" -> tool = value;
                case "--args", "--arguments" -> arguments = value;
                case "--answers" -> answers = value;
                case "--action" -> {
                    action = value.toLowerCase(Locale.ROOT);
                    if (!List.of("accept", "decline", "cancel").contains(action)) {
                        throw new UsageException("--action must be accept, decline or cancel, not " + value);
                    }
                }
                case "--protocol" -> protocol = Protocol.of(value);
                case "--concurrency", "-c" -> concurrency = parseConcurrency(value);
                case "--duration", "-d" -> duration = parseDuration("--duration", value);
                case "--requests", "-n" -> requests = parseCount("--requests", value);
                case "--warmup" -> warmup = parseDuration("--warmup", value);
                case "--timeout" -> timeout = parseDuration("--timeout", value);
                case "--flow-timeout" -> flowTimeout = parseDuration("--flow-timeout", value);
                case "--max-rounds" -> maxRounds = (int) parseCount("--max-rounds", value);
                case "--default-poll" -> defaultPoll = parseDuration("--default-poll", value);
                case "--client" ->
                    client = switch (value.toLowerCase(Locale.ROOT)) {
                        case "socket" -> ClientKind.SOCKET;
                        case "jdk" -> ClientKind.JDK;
                        default -> throw new UsageException("--client must be socket or jdk, not " + value);
                    };
                case "--allow-host" -> {
                    for (String host : value.split(",")) {
                        if (!host.isBlank()) {
                            allowHosts.add(host.trim().toLowerCase(Locale.ROOT));
                        }
                    }
                }
                case "--header", "-H" -> {
                    int colon = value.indexOf(':');
                    if (colon <= 0) {
                        throw new UsageException("--header must look like 'Name: value', not " + value);
                    }
                    headers.put(
                            value.substring(0, colon).trim(),
                            value.substring(colon + 1).trim());
                }
                case "--json" -> json = Path.of(value);
                case "--html" -> html = Path.of(value);
                case "--rate", "-r" -> rates = parseRates(value);
                case "--server-pid" -> {
                    serverPid = parseCount("--server-pid", value);
                    if (CpuSampler.processCpuNanos(serverPid) < 0) {
                        throw new UsageException(
                                "--server-pid " + value + ": no such process whose CPU time can be read (Linux /proc)");
                    }
                }
                default -> throw new UsageException("unknown option " + arg);
            }
        }
        if (duration == null && requests == null) {
            throw new UsageException("refusing to run without a bound: give --duration or --requests (or both)");
        }
        if (duration != null && (duration.isZero() || duration.compareTo(MAX_DURATION) > 0)) {
            throw new UsageException(
                    "--duration must be more than 0 and at most " + MAX_DURATION.toMinutes() + " minutes");
        }
        if (requests != null && (requests < 1 || requests > MAX_REQUESTS)) {
            throw new UsageException("--requests must be between 1 and " + MAX_REQUESTS);
        }
        if (warmup.compareTo(MAX_WARMUP) > 0) {
            throw new UsageException("--warmup must be at most " + MAX_WARMUP.toMinutes() + " minutes");
        }
        if (timeout.isZero() || timeout.compareTo(MAX_TIMEOUT) > 0) {
            throw new UsageException(
                    "--timeout must be more than 0 and at most " + MAX_TIMEOUT.toMinutes() + " minutes");
        }
        if (flowTimeout.isZero() || flowTimeout.compareTo(MAX_DURATION) > 0) {
            throw new UsageException("--flow-timeout must be more than 0 and at most 1 hour");
        }
        if (maxRounds < 1 || maxRounds > MAX_ROUNDS) {
            throw new UsageException("--max-rounds must be between 1 and " + MAX_ROUNDS);
        }
        if (defaultPoll.isZero() || defaultPoll.compareTo(Duration.ofMinutes(1)) > 0) {
            throw new UsageException("--default-poll must be more than 0 and at most 1 minute");
        }
        boolean concurrencyGiven = java.util.Arrays.stream(args)
                .anyMatch(a -> a.equals("--concurrency") || a.equals("-c") || a.startsWith("--concurrency="));
        if (!rates.isEmpty()) {
            if (concurrency.size() > 1) {
                throw new UsageException(
                        "with --rate, --concurrency is one number: the most flows in flight (workers)");
            }
            if (!concurrencyGiven) {
                concurrency = List.of(256);
            }
        }
        if (protocol == Protocol.V2025_11_25 && flow == FlowKind.TASK) {
            throw new UsageException("--protocol 2025-11-25 has no tasks (--flow call or mrtr)");
        }
        URI target;
        try {
            target = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--url is not a URI: " + url);
        }
        String scheme = target.getScheme() == null ? "" : target.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || target.getHost() == null) {
            throw new UsageException("--url must be an http:// or https:// URL with a host, not " + url);
        }
        if (client == null) {
            client = scheme.equals("https") ? ClientKind.JDK : ClientKind.SOCKET;
        } else if (client == ClientKind.SOCKET && scheme.equals("https")) {
            throw new UsageException("--client socket speaks plain http only; use --client jdk for https");
        }
        if (tool == null) {
            tool = switch (flow) {
                case CALL -> DEFAULT_CALL_TOOL;
                case MRTR -> DEFAULT_MRTR_TOOL;
                case TASK -> throw new UsageException("--flow task needs --tool (a tool the server runs as a task)");
            };
        }
        if (arguments == null) {
            arguments = tool.equals(DEFAULT_CALL_TOOL)
                    ? DEFAULT_CALL_ARGUMENTS
                    : tool.equals(DEFAULT_MRTR_TOOL) ? DEFAULT_MRTR_ARGUMENTS : "{}";
        }
        return new LoadOptions(
                target,
                flow,
                tool,
                jsonObject("--args", arguments),
                jsonObject("--answers", answers),
                action,
                protocol,
                concurrency,
                duration,
                requests,
                warmup,
                timeout,
                flowTimeout,
                maxRounds,
                defaultPoll,
                client,
                List.copyOf(allowHosts),
                Map.copyOf(headers),
                json,
                html,
                progress,
                rates,
                pollNow,
                serverPid);
    }

    static List<Integer> parseConcurrency(String value) {
        List<Integer> levels = new ArrayList<>();
        for (String part : value.split(",")) {
            int level;
            try {
                level = Integer.parseInt(part.trim());
            } catch (NumberFormatException e) {
                throw new UsageException("--concurrency must be a comma-separated list of numbers, not " + value);
            }
            if (level < 1 || level > MAX_CONCURRENCY) {
                throw new UsageException("each --concurrency level must be between 1 and " + MAX_CONCURRENCY);
            }
            levels.add(level);
        }
        if (levels.isEmpty() || levels.size() > MAX_LEVELS) {
            throw new UsageException("--concurrency takes 1 to " + MAX_LEVELS + " levels");
        }
        return List.copyOf(levels);
    }

    /** {@code 1000}, {@code 1000/s} or several levels {@code 500,1000,2000/s}: flows started per second. */
    static List<Double> parseRates(String value) {
        String text = value.trim().toLowerCase(Locale.ROOT);
        if (text.endsWith("/s")) {
            text = text.substring(0, text.length() - 2);
        }
        List<Double> levels = new ArrayList<>();
        for (String part : text.split(",")) {
            String one = part.trim().endsWith("/s")
                    ? part.trim().substring(0, part.trim().length() - 2)
                    : part.trim();
            double rate;
            try {
                rate = Double.parseDouble(one);
            } catch (NumberFormatException e) {
                throw new UsageException(
                        "--rate must be flows per second, e.g. 1000/s or 500,1000,2000/s, not " + value);
            }
            if (!(rate > 0) || rate > MAX_RATE) {
                throw new UsageException("each --rate level must be more than 0 and at most " + (long) MAX_RATE + "/s");
            }
            levels.add(rate);
        }
        if (levels.isEmpty() || levels.size() > MAX_LEVELS) {
            throw new UsageException("--rate takes 1 to " + MAX_LEVELS + " levels");
        }
        return List.copyOf(levels);
    }

    /** {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}, or plain seconds ({@code 30}). */
    static Duration parseDuration(String option, String value) {
        String text = value.trim().toLowerCase(Locale.ROOT);
        try {
            if (text.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
            }
            char unit = text.charAt(text.length() - 1);
            String number = Character.isDigit(unit) ? text : text.substring(0, text.length() - 1);
            double amount = Double.parseDouble(number);
            if (amount < 0 || Double.isNaN(amount) || Double.isInfinite(amount)) {
                throw new NumberFormatException();
            }
            double seconds = switch (unit) {
                case 'h' -> amount * 3600;
                case 'm' -> amount * 60;
                case 's' -> amount;
                default -> {
                    if (!Character.isDigit(unit)) {
                        throw new NumberFormatException();
                    }
                    yield amount;
                }
            };
            if (seconds > 100L * 24 * 3600) {
                throw new NumberFormatException();
            }
            return Duration.ofMillis(Math.round(seconds * 1000));
        } catch (RuntimeException e) {
            throw new UsageException(option + " must be a duration like 500ms, 30s, 2m or 1h, not " + value);
        }
    }

    static long parseCount(String option, String value) {
        try {
            String text = value.trim().replace("_", "").toLowerCase(Locale.ROOT);
            long factor = 1;
            if (text.endsWith("k")) {
                factor = 1_000;
                text = text.substring(0, text.length() - 1);
            } else if (text.endsWith("m")) {
                factor = 1_000_000;
                text = text.substring(0, text.length() - 1);
            }
            return Math.multiplyExact(Long.parseLong(text), factor);
        } catch (RuntimeException e) {
            throw new UsageException(option + " must be a whole number (10000, 10k, 1m), not " + value);
        }
    }

    private static ObjectNode jsonObject(String option, String text) {
        JsonNode node;
        try {
            node = Json.parse(text);
        } catch (IllegalArgumentException e) {
            throw new UsageException(option + " is not valid JSON: " + e.getMessage());
        }
        if (!(node instanceof ObjectNode object)) {
            throw new UsageException(option + " must be a JSON object, not " + text);
        }
        return object;
    }

    /** Whether the target is loopback, or a host the user allowed by name. */
    public void checkTargetAllowed() {
        String host = url.getHost().toLowerCase(Locale.ROOT);
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        if (allowHosts.contains(host) || allowHosts.contains(bare)) {
            return;
        }
        if (isLoopback(bare)) {
            return;
        }
        throw new UsageException("refusing to send load to " + host + ": it is not a loopback address. "
                + "Name it with --allow-host " + bare + " if you mean it (only hosts you run or may test).");
    }

    /** Loopback by its literal text, or a name whose every address is loopback. */
    static boolean isLoopback(String host) {
        if (host.equals("localhost") || host.equals("::1") || host.equals("0:0:0:0:0:0:0:1")) {
            return true;
        }
        if (host.matches("127(\\.\\d{1,3}){3}")) {
            return true;
        }
        if (host.matches("[0-9.]+") || host.contains(":")) {
            return false; // another literal address
        }
        try {
            java.net.InetAddress[] addresses = java.net.InetAddress.getAllByName(host);
            for (java.net.InetAddress address : addresses) {
                if (!address.isLoopbackAddress()) {
                    return false;
                }
            }
            return addresses.length > 0;
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    /** The options as JSON, for the report. */
    public ObjectNode toJson() {
        ObjectNode node = Json.object();
        node.put("url", url.toString());
        node.put("flow", flow.name().toLowerCase(Locale.ROOT));
        node.put("tool", tool);
        node.set("arguments", arguments);
        node.set("answers", answers);
        node.put("action", action);
        node.put("protocol", protocol.wire);
        node.set("concurrency", Json.tree(concurrency));
        node.set("ratePerSecond", Json.tree(rates));
        node.put("pollNow", pollNow);
        if (duration != null) {
            node.put("durationSeconds", duration.toMillis() / 1000.0);
        }
        if (requests != null) {
            node.put("requests", requests);
        }
        node.put("warmupSeconds", warmup.toMillis() / 1000.0);
        node.put("timeoutSeconds", timeout.toMillis() / 1000.0);
        node.put("client", client.name().toLowerCase(Locale.ROOT));
        return node;
    }
}
