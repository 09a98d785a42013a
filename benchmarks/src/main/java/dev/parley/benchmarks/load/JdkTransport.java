package dev.parley.benchmarks.load;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code java.net.http.HttpClient} on HTTP/1.1 (it pools keep-alive connections), shared by all
 * workers of a run; each worker blocks in {@code send}. Needed for https targets.
 */
public final class JdkTransport implements HttpTransport {
    private final HttpClient client;
    private final ExecutorService executor;
    private final URI url;
    private final Duration timeout;
    private final boolean owner;

    /** A client with {@code threads} threads for its response handling. */
    public static JdkTransport shared(URI url, Duration timeout, int threads) {
        AtomicInteger count = new AtomicInteger();
        ExecutorService executor = Executors.newFixedThreadPool(Math.max(2, threads), runnable -> {
            Thread thread = new Thread(runnable, "load-http-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(timeout)
                .followRedirects(HttpClient.Redirect.NEVER)
                .executor(executor)
                .build();
        return new JdkTransport(client, executor, url, timeout, true);
    }

    private JdkTransport(HttpClient client, ExecutorService executor, URI url, Duration timeout, boolean owner) {
        this.client = client;
        this.executor = executor;
        this.url = url;
        this.timeout = timeout;
        this.owner = owner;
    }

    /** A view for one worker that shares the client; closing it leaves the client open. */
    public JdkTransport forWorker() {
        return new JdkTransport(client, executor, url, timeout, false);
    }

    @Override
    public Response post(Map<String, String> headers, byte[] body) throws IOException, InterruptedException {
        HttpRequest.Builder request =
                HttpRequest.newBuilder(url).timeout(timeout).POST(HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach(request::header);
        HttpResponse<byte[]> response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        Map<String, String> responseHeaders = new HashMap<>();
        for (Map.Entry<String, List<String>> header : response.headers().map().entrySet()) {
            responseHeaders.put(header.getKey().toLowerCase(Locale.ROOT), String.join(", ", header.getValue()));
        }
        return new Response(response.statusCode(), responseHeaders, response.body());
    }

    @Override
    public void close() {
        if (owner) {
            executor.shutdownNow();
        }
    }
}
