package dev.parley.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient;
import dev.parley.testing.SpecSchema2025;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One POST to the MCP endpoint over a raw socket, read as it arrives: the response head, then
 * (for {@code text/event-stream}) one SSE event or comment at a time. Closing it closes the TCP
 * connection, which is how an HTTP client cancels a request or ends a listen stream (spec §6.1).
 * A reader thread parses the stream as it comes; every wait of the test is bounded, and a
 * wait that times out fails the test.
 */
final class SseConnection implements AutoCloseable {
    /** How long a test waits for one event unless it says otherwise. */
    static final Duration EVENT_TIMEOUT = Duration.ofSeconds(20);

    /** One SSE block: an event (its {@code event:} name and joined {@code data:} lines) or a comment line. */
    record Event(String name, String data, String comment, String id, String retry) {
        Event(String name, String data, String comment) {
            this(name, data, comment, null, null);
        }

        boolean isComment() {
            return comment != null;
        }

        /** An event with an id and empty data: a place to resume from, no message (spec 2025-11-25 §3.2). */
        boolean isPriming() {
            return comment == null && data != null && data.isEmpty();
        }

        /** Comments and priming events carry no message. */
        boolean carriesNoMessage() {
            return isComment() || isPriming();
        }

        JsonNode json() {
            return Json.parse(data);
        }
    }

    private static final Event END = new Event(null, null, null);

    private final Socket socket;
    private final int status;
    private final Map<String, String> headers;
    private final InputStream body;
    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private volatile boolean ended;
    private volatile IOException failure;
    private volatile String lastEventId;
    /** When set, every message taken is checked against the 2025-11-25 schema as answering this method. */
    private volatile String validating2025;

    private SseConnection(Socket socket, InputStream in, int status, Map<String, String> headers) {
        this.socket = socket;
        this.status = status;
        this.headers = headers;
        String transfer = headers.getOrDefault("transfer-encoding", "");
        if (transfer.toLowerCase(Locale.ROOT).contains("chunked")) {
            this.body = new ChunkedBody(in);
        } else if (headers.containsKey("content-length")) {
            this.body = new LimitedBody(
                    in, Long.parseLong(headers.get("content-length").trim()));
        } else {
            this.body = in;
        }
        if (isEventStream()) {
            Thread reader = new Thread(this::readEvents, "sse-reader-" + socket.getLocalPort());
            reader.setDaemon(true);
            reader.start();
        }
    }

    /** POSTs {@code message} with the headers a conforming client derives from it. */
    static SseConnection open(int port, ObjectNode message) {
        return open(port, message, McpTestClient.standardHeaders(message));
    }

    /** POSTs {@code message} with exactly {@code headers}, and reads the response head. */
    static SseConnection open(int port, ObjectNode message, Map<String, String> headers) {
        return open(port, "POST", Json.write(message).getBytes(StandardCharsets.UTF_8), headers);
    }

    /** A GET (e.g. resuming a stream with {@code Last-Event-ID}) with exactly {@code headers}. */
    static SseConnection get(int port, Map<String, String> headers) {
        return open(port, "GET", null, headers);
    }

    /**
     * From now on every message taken from this stream must be a valid 2025-11-25 server message
     * ({@link SpecSchema2025}), its response one to a {@code requestMethod} request.
     */
    SseConnection validating2025(String requestMethod) {
        validating2025 = requestMethod;
        return this;
    }

    private JsonNode checked(JsonNode message) {
        if (validating2025 != null) {
            SpecSchema2025.assertValidServerMessage(message, validating2025);
        }
        return message;
    }

    /** The id of the last event with an id this stream delivered so far, or null. */
    String lastEventId() {
        return lastEventId;
    }

    private static SseConnection open(int port, String method, byte[] payload, Map<String, String> headers) {
        StringBuilder head = new StringBuilder(method + " /mcp HTTP/1.1\r\n")
                .append("Host: 127.0.0.1:")
                .append(port)
                .append("\r\n");
        if (payload != null) {
            head.append("Content-Length: ").append(payload.length).append("\r\n");
        }
        headers.forEach(
                (name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        head.append("\r\n");
        Socket socket = null;
        try {
            socket = new Socket(InetAddress.getLoopbackAddress(), port);
            socket.setSoTimeout((int) EVENT_TIMEOUT.toMillis());
            OutputStream out = socket.getOutputStream();
            out.write(head.toString().getBytes(StandardCharsets.US_ASCII));
            if (payload != null) {
                out.write(payload);
            }
            out.flush();
            InputStream in = new BufferedInputStream(socket.getInputStream());
            String statusLine = readLine(in);
            if (statusLine == null || !statusLine.startsWith("HTTP/1.")) {
                throw new IllegalStateException("not an HTTP response: " + statusLine);
            }
            int status = Integer.parseInt(statusLine.split(" ")[1]);
            Map<String, String> responseHeaders = new LinkedHashMap<>();
            for (String line = readLine(in); line != null && !line.isEmpty(); line = readLine(in)) {
                int colon = line.indexOf(':');
                responseHeaders.put(
                        line.substring(0, colon).trim().toLowerCase(Locale.ROOT),
                        line.substring(colon + 1).trim());
            }
            // From here on a reader waits as long as the stream lives; callers bound their waits.
            socket.setSoTimeout(0);
            return new SseConnection(socket, in, status, responseHeaders);
        } catch (IOException e) {
            closeQuietly(socket);
            throw new UncheckedIOException("POST to port " + port + " failed", e);
        }
    }

    int status() {
        return status;
    }

    /** A response header (name in any case), or null. */
    String header(String name) {
        return headers.get(name.toLowerCase(Locale.ROOT));
    }

    String contentType() {
        return header("content-type");
    }

    boolean isEventStream() {
        return contentType() != null && contentType().startsWith("text/event-stream");
    }

    /** Whether the server ended the response (the last chunk, or EOF) and every event was taken. */
    boolean ended() {
        Event head = events.peek();
        return ended && (head == null || head == END);
    }

    /** The whole body as text (for a response that is not an event stream). */
    String readBody(Duration timeout) {
        if (isEventStream()) {
            throw new IllegalStateException("an event stream is read event by event");
        }
        try {
            socket.setSoTimeout((int) timeout.toMillis());
            String text = new String(body.readAllBytes(), StandardCharsets.UTF_8);
            ended = true;
            return text;
        } catch (IOException e) {
            throw new UncheckedIOException("reading the response body failed", e);
        }
    }

    /** The reader thread: parses the body into events until it ends or the socket is closed. */
    private void readEvents() {
        String name = null;
        StringBuilder data = null;
        String id = null;
        String retry = null;
        try {
            while (true) {
                String line = readLine(body);
                if (line == null) {
                    if (data != null) {
                        events.add(new Event(name, data.toString(), null, id, retry));
                    }
                    return;
                }
                if (line.isEmpty()) {
                    if (data != null) {
                        lastEventId = id == null ? lastEventId : id;
                        events.add(new Event(name, data.toString(), null, id, retry));
                    }
                    name = null;
                    data = null;
                    id = null;
                    retry = null;
                } else if (line.startsWith(":")) {
                    events.add(new Event(null, null, line.substring(1).trim()));
                } else {
                    int colon = line.indexOf(':');
                    String field = colon < 0 ? line : line.substring(0, colon);
                    String value = colon < 0 ? "" : line.substring(colon + 1);
                    if (value.startsWith(" ")) {
                        value = value.substring(1);
                    }
                    if (field.equals("event")) {
                        name = value;
                    } else if (field.equals("id")) {
                        id = value;
                    } else if (field.equals("retry")) {
                        retry = value;
                    } else if (field.equals("data")) {
                        data = data == null
                                ? new StringBuilder(value)
                                : data.append('\n').append(value);
                    }
                }
            }
        } catch (IOException e) {
            if (!socket.isClosed()) {
                failure = e;
            }
        } finally {
            ended = true;
            events.add(END);
        }
    }

    /**
     * The next event or comment, waiting at most {@code timeout}; null when it did not come in
     * time or the stream ended ({@link #ended()} tells which).
     */
    Event poll(Duration timeout) {
        try {
            Event event = events.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
            if (event == END) {
                events.add(END); // stays at the end for later calls
                if (failure != null) {
                    throw new UncheckedIOException("reading the event stream failed", failure);
                }
                return null;
            }
            return event;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** The next event or comment; null when the stream ended; fails when none comes in time. */
    Event next(Duration timeout) {
        Event event = poll(timeout);
        if (event == null && !ended()) {
            throw new AssertionError("no SSE event within " + timeout);
        }
        return event;
    }

    Event next() {
        return next(EVENT_TIMEOUT);
    }

    /** The next JSON-RPC message, skipping comments; fails when the stream ends first. */
    JsonNode nextMessage(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("no message within " + timeout + " (only comments)");
            }
            Event event = next(Duration.ofNanos(left));
            if (event == null) {
                throw new AssertionError("the stream ended before the next message");
            }
            if (!event.carriesNoMessage()) {
                return checked(event.json());
            }
        }
    }

    JsonNode nextMessage() {
        return nextMessage(EVENT_TIMEOUT);
    }

    /** The next message within {@code timeout}, skipping comments; null when none came in time. */
    JsonNode pollMessage(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            Event event = poll(Duration.ofNanos(left));
            if (event == null) {
                if (ended()) {
                    throw new AssertionError("the stream ended");
                }
                return null;
            }
            if (!event.carriesNoMessage()) {
                return checked(event.json());
            }
        }
    }

    /** The next comment line, fails if a message comes first. */
    String nextComment(Duration timeout) {
        Event event = next(timeout);
        if (event == null) {
            throw new AssertionError("the stream ended before a comment");
        }
        if (!event.isComment()) {
            throw new AssertionError("a comment expected, got the message " + event.data());
        }
        return event.comment();
    }

    /** Every message until the server ends the stream (comments skipped). */
    List<JsonNode> readToEnd(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<JsonNode> messages = new ArrayList<>();
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("the stream did not end within " + timeout + "; so far: " + messages);
            }
            Event event = poll(Duration.ofNanos(left));
            if (event == null) {
                if (ended()) {
                    return messages;
                }
                throw new AssertionError("the stream did not end within " + timeout + "; so far: " + messages);
            }
            if (!event.carriesNoMessage()) {
                messages.add(checked(event.json()));
            }
        }
    }

    List<JsonNode> readToEnd() {
        return readToEnd(EVENT_TIMEOUT);
    }

    /** Closes the TCP connection: the client has gone away. */
    @Override
    public void close() {
        closeQuietly(socket);
    }

    private static void closeQuietly(Socket socket) {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing is all we wanted
            }
        }
    }

    /** A line ending in LF (CR before it dropped), or null at EOF before any byte. */
    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != -1) {
            if (b == '\n') {
                byte[] bytes = line.toByteArray();
                int length = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, length, StandardCharsets.UTF_8);
            }
            line.write(b);
        }
        return line.size() == 0 ? null : line.toString(StandardCharsets.UTF_8);
    }

    /** The decoded body of a {@code Transfer-Encoding: chunked} response; EOF after the last chunk. */
    private static final class ChunkedBody extends InputStream {
        private final InputStream in;
        private long left;
        private boolean done;

        ChunkedBody(InputStream in) {
            this.in = in;
        }

        @Override
        public int read() throws IOException {
            if (done) {
                return -1;
            }
            if (left == 0) {
                String size = readLine(in);
                if (size == null) {
                    done = true;
                    return -1;
                }
                if (size.isEmpty()) {
                    // the CRLF after the previous chunk's data
                    size = readLine(in);
                    if (size == null) {
                        done = true;
                        return -1;
                    }
                }
                int extension = size.indexOf(';');
                left = Long.parseLong((extension < 0 ? size : size.substring(0, extension)).trim(), 16);
                if (left == 0) {
                    for (String trailer = readLine(in); trailer != null && !trailer.isEmpty(); trailer = readLine(in)) {
                        // trailers are not used
                    }
                    done = true;
                    return -1;
                }
            }
            int b = in.read();
            if (b == -1) {
                throw new EOFException("connection closed inside a chunk");
            }
            left--;
            return b;
        }
    }

    /** A body of known length. */
    private static final class LimitedBody extends InputStream {
        private final InputStream in;
        private long left;

        LimitedBody(InputStream in, long length) {
            this.in = in;
            this.left = length;
        }

        @Override
        public int read() throws IOException {
            if (left <= 0) {
                return -1;
            }
            int b = in.read();
            if (b != -1) {
                left--;
            }
            return b;
        }
    }
}
