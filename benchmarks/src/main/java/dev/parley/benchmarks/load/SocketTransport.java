package dev.parley.benchmarks.load;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 over one plain keep-alive socket, blocking: the lightest client a worker can have
 * (no selector thread, no hand-offs), so that on a shared machine the load generator takes as
 * little CPU from the server as possible. Reads Content-Length, chunked and close-delimited
 * bodies. A request that finds its reused connection closed by the server before any byte of
 * the response arrived is sent once more on a new connection.
 */
public final class SocketTransport implements HttpTransport {
    private static final int MAX_HEADER_BYTES = 64 * 1024;
    private static final int MAX_BODY_BYTES = 64 * 1024 * 1024;

    private final String host;
    private final int port;
    private final byte[] requestHead;
    private final int timeoutMillis;
    private Socket socket;
    private InputStream in;
    private OutputStream out;
    private int connects;

    public SocketTransport(URI url, Duration timeout) {
        this.host = url.getHost();
        this.port = url.getPort() > 0 ? url.getPort() : 80;
        String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
        if (url.getRawQuery() != null) {
            path += "?" + url.getRawQuery();
        }
        String hostHeader = url.getPort() > 0 ? url.getHost() + ":" + url.getPort() : url.getHost();
        this.requestHead =
                ("POST " + path + " HTTP/1.1\r\nHost: " + hostHeader + "\r\n").getBytes(StandardCharsets.US_ASCII);
        this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
    }

    /** How many connections this transport opened. */
    public int connects() {
        return connects;
    }

    /** Where the lines of a streamed (chunked) response body go as they arrive, without their line ends. */
    @FunctionalInterface
    public interface Lines {
        void line(String line) throws IOException;
    }

    @Override
    public Response post(Map<String, String> headers, byte[] body) throws IOException {
        return post(headers, body, null);
    }

    /**
     * As {@link #post(Map, byte[])}, but a chunked body (an SSE stream) goes to {@code lines} line by
     * line as it arrives, while the stream stays open, and the returned response's body is empty.
     */
    public Response post(Map<String, String> headers, byte[] body, Lines lines) throws IOException {
        boolean reused = socket != null;
        try {
            return exchange(headers, body, lines);
        } catch (IOException e) {
            closeSocket();
            // A kept-alive connection the server had already closed: the request never reached it.
            boolean neverArrived = e instanceof StaleConnection || (sending && e instanceof java.net.SocketException);
            if (!reused || !neverArrived) {
                throw e instanceof StaleConnection ? new EOFException("connection closed before a response") : e;
            }
        } catch (RuntimeException e) {
            closeSocket();
            throw e;
        }
        try {
            return exchange(headers, body, lines);
        } catch (IOException | RuntimeException e) {
            closeSocket();
            if (e instanceof StaleConnection) {
                throw new EOFException("connection closed before a response");
            }
            throw e;
        }
    }

    /** True while the request is being written (nothing of the response has been read). */
    private boolean sending;

    private Response exchange(Map<String, String> headers, byte[] body, Lines lines) throws IOException {
        sending = false;
        if (socket == null) {
            connect();
        }
        StringBuilder head = new StringBuilder(256);
        headers.forEach(
                (name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        head.append("Content-Length: ").append(body.length).append("\r\n\r\n");
        sending = true;
        out.write(requestHead);
        out.write(head.toString().getBytes(StandardCharsets.UTF_8));
        out.write(body);
        out.flush();
        sending = false;
        String statusLine = readLine(true);
        if (statusLine == null) {
            throw new StaleConnection();
        }
        int status = parseStatus(statusLine);
        Map<String, String> responseHeaders = new HashMap<>();
        int headerBytes = 0;
        for (String line = readLine(false); !line.isEmpty(); line = readLine(false)) {
            headerBytes += line.length();
            if (headerBytes > MAX_HEADER_BYTES) {
                throw new IOException("response headers too large");
            }
            int colon = line.indexOf(':');
            if (colon > 0) {
                String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                String value = line.substring(colon + 1).trim();
                responseHeaders.merge(name, value, (a, b) -> a + ", " + b);
            }
        }
        byte[] responseBody;
        String transferEncoding =
                responseHeaders.getOrDefault("transfer-encoding", "").toLowerCase(Locale.ROOT);
        String contentLength = responseHeaders.get("content-length");
        boolean closeAfter = responseHeaders
                .getOrDefault("connection", "")
                .toLowerCase(Locale.ROOT)
                .contains("close");
        if (status == 204 || status == 304 || status < 200) {
            responseBody = new byte[0];
        } else if (transferEncoding.contains("chunked") && lines != null) {
            readChunkedLines(lines);
            responseBody = new byte[0];
        } else if (transferEncoding.contains("chunked")) {
            responseBody = readChunked();
        } else if (contentLength != null) {
            long length = Long.parseLong(contentLength.trim());
            if (length < 0 || length > MAX_BODY_BYTES) {
                throw new IOException("response body of " + length + " bytes");
            }
            responseBody = in.readNBytes((int) length);
            if (responseBody.length != length) {
                throw new EOFException("response body cut short");
            }
        } else {
            responseBody = readToEnd();
            closeAfter = true;
        }
        if (closeAfter) {
            closeSocket();
        }
        return new Response(status, responseHeaders, responseBody);
    }

    private void connect() throws IOException {
        Socket fresh = new Socket();
        try {
            fresh.setTcpNoDelay(true);
            fresh.setKeepAlive(true);
            fresh.setSoTimeout(timeoutMillis);
            fresh.connect(new InetSocketAddress(host, port), timeoutMillis);
        } catch (IOException e) {
            fresh.close();
            throw e;
        }
        socket = fresh;
        in = new BufferedInputStream(fresh.getInputStream(), 16 * 1024);
        out = new BufferedOutputStream(fresh.getOutputStream(), 16 * 1024);
        connects++;
    }

    private static int parseStatus(String statusLine) throws IOException {
        // HTTP/1.1 200 OK
        int space = statusLine.indexOf(' ');
        if (!statusLine.startsWith("HTTP/") || space < 0 || statusLine.length() < space + 4) {
            throw new IOException("not an HTTP response: " + statusLine);
        }
        try {
            return Integer.parseInt(statusLine.substring(space + 1, space + 4));
        } catch (NumberFormatException e) {
            throw new IOException("not an HTTP status line: " + statusLine);
        }
    }

    /** A line without its CRLF; null at a clean end of stream when {@code eofIsNull}. */
    private String readLine(boolean eofIsNull) throws IOException {
        StringBuilder line = new StringBuilder(64);
        while (true) {
            int b = in.read();
            if (b < 0) {
                if (eofIsNull && line.length() == 0) {
                    return null;
                }
                throw new EOFException("connection closed in the middle of a response");
            }
            if (b == '\n') {
                int length = line.length();
                if (length > 0 && line.charAt(length - 1) == '\r') {
                    line.setLength(length - 1);
                }
                return line.toString();
            }
            if (line.length() > MAX_HEADER_BYTES) {
                throw new IOException("response line too long");
            }
            line.append((char) b);
        }
    }

    private byte[] readChunked() throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            int size = nextChunkSize();
            if (size == 0) {
                return body.toByteArray();
            }
            if (body.size() + size > MAX_BODY_BYTES) {
                throw new IOException("chunked response body too large");
            }
            byte[] chunk = in.readNBytes(size);
            if (chunk.length != size) {
                throw new EOFException("chunk cut short");
            }
            body.write(chunk);
            readLine(false);
        }
    }

    /** The next chunk's size; at the last chunk (0) its trailers and the closing empty line are read too. */
    private int nextChunkSize() throws IOException {
        String sizeLine = readLine(false);
        int semicolon = sizeLine.indexOf(';');
        String hex = (semicolon >= 0 ? sizeLine.substring(0, semicolon) : sizeLine).trim();
        int size;
        try {
            size = Integer.parseInt(hex, 16);
        } catch (NumberFormatException e) {
            throw new IOException("bad chunk size: " + sizeLine);
        }
        if (size == 0) {
            while (!readLine(false).isEmpty()) {
                // ignore trailers
            }
        }
        return size;
    }

    /** A chunked body handed on line by line (UTF-8, LF or CRLF ends) as its chunks arrive. */
    private void readChunkedLines(Lines lines) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(256);
        while (true) {
            int size = nextChunkSize();
            if (size == 0) {
                if (line.size() > 0) {
                    lines.line(line.toString(StandardCharsets.UTF_8));
                }
                return;
            }
            byte[] chunk = in.readNBytes(size);
            if (chunk.length != size) {
                throw new EOFException("chunk cut short");
            }
            for (byte b : chunk) {
                if (b == '\n') {
                    byte[] bytes = line.toByteArray();
                    int length = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                    lines.line(new String(bytes, 0, length, StandardCharsets.UTF_8));
                    line.reset();
                } else if (line.size() > MAX_HEADER_BYTES * 16) {
                    throw new IOException("event stream line too long");
                } else {
                    line.write(b);
                }
            }
            readLine(false);
        }
    }

    private byte[] readToEnd() throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        for (int n; (n = in.read(buffer)) >= 0; ) {
            body.write(buffer, 0, n);
            if (body.size() > MAX_BODY_BYTES) {
                throw new IOException("response body too large");
            }
        }
        return body.toByteArray();
    }

    private void closeSocket() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
            socket = null;
            in = null;
            out = null;
        }
    }

    @Override
    public void close() {
        closeSocket();
    }

    /** The server closed a kept-alive connection before answering. */
    private static final class StaleConnection extends IOException {
        StaleConnection() {
            super("stale connection", null);
        }
    }
}
