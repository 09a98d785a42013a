package dev.parley.benchmarks.load;

import java.io.IOException;
import java.util.Map;

/** One worker's way to POST a body and read the whole response. */
public interface HttpTransport extends AutoCloseable {

    /** The response; headers by lower-case name. */
    record Response(int status, Map<String, String> headers, byte[] body) {
        public String header(String name) {
            return headers.get(name);
        }

        public String contentType() {
            String type = headers.get("content-type");
            return type == null ? "" : type;
        }
    }

    /** POSTs {@code body} with {@code headers} (Content-Type and Accept are added by the caller). */
    Response post(Map<String, String> headers, byte[] body) throws IOException, InterruptedException;

    @Override
    void close();
}
