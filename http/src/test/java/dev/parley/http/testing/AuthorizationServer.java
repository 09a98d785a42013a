package dev.parley.http.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.KeyUse;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import dev.parley.runtime.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A real authorization server for the tests: oidc-provider (npm, the certified OpenID Provider
 * library) run by the repository's {@code authorization-server/authorization-server.mjs} on a
 * loopback port. Installs its packages with {@code npm ci} into the git-ignored
 * {@code authorization-server/node_modules} on first use; a machine without npm skips the tests
 * that need it.
 *
 * <p>The signing key is made here and handed to the server, so tests can also mint edge-case
 * tokens with it; {@link #rotate()} restarts the server on the same port with a new key.
 */
public final class AuthorizationServer implements AutoCloseable {
    private static final Path DIRECTORY = repositoryFolder("authorization-server");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final int port;
    private final String resource;
    private final Path keyFile;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private RSAKey key;
    private Process process;

    private AuthorizationServer(int port, String resource, Path keyFile) {
        this.port = port;
        this.resource = resource;
        this.keyFile = keyFile;
    }

    /** Starts the server for tokens whose audience is {@code resource}. */
    public static AuthorizationServer start(String resource, Path workDirectory) throws Exception {
        installPackages();
        AuthorizationServer server = new AuthorizationServer(freePort(), resource, workDirectory.resolve("jwks.json"));
        server.key = newKey("key-1");
        server.launch();
        return server;
    }

    public String issuer() {
        return "http://127.0.0.1:" + port;
    }

    public String jwksUri() {
        return issuer() + "/jwks";
    }

    public String introspectionEndpoint() {
        return issuer() + "/token/introspection";
    }

    /** The current signing key (private), for minting edge-case tokens. */
    public RSAKey key() {
        return key;
    }

    /** Client credentials grant (RFC 6749 §4.4) for Parley's resource indicator (RFC 8707). */
    public String clientCredentialsToken(String client, String scope) throws Exception {
        JsonNode answer = tokenRequest(client, scope, resource);
        if (!answer.has("access_token")) {
            throw new IllegalStateException("no token for " + client + ": " + answer);
        }
        return answer.path("access_token").asText();
    }

    /** The token endpoint's answer as JSON (errors included). */
    public JsonNode tokenRequest(String client, String scope, String resourceIndicator) throws Exception {
        String form = "grant_type=client_credentials&scope=" + URLEncoder.encode(scope, StandardCharsets.UTF_8)
                + "&resource=" + URLEncoder.encode(resourceIndicator, StandardCharsets.UTF_8);
        HttpRequest request = HttpRequest.newBuilder(URI.create(issuer() + "/token"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header(
                        "Authorization",
                        "Basic "
                                + Base64.getEncoder()
                                        .encodeToString(
                                                (client + ":" + client + "-secret").getBytes(StandardCharsets.UTF_8)))
                .POST(HttpRequest.BodyPublishers.ofString(form))
                .build();
        return Json.parse(
                http.send(request, HttpResponse.BodyHandlers.ofString()).body());
    }

    /**
     * Runs {@code authorization-server/mcp-client.mjs}: the official TypeScript SDK client, with
     * its client-credentials OAuth provider for client {@code alice}, against {@code endpoint}.
     * Returns what it printed last (one JSON line).
     */
    public String runMcpClient(String endpoint) throws Exception {
        Process client = new ProcessBuilder("node", "mcp-client.mjs", endpoint, issuer())
                .directory(DIRECTORY.toFile())
                .redirectErrorStream(true)
                .start();
        CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        if (!client.waitFor(90, TimeUnit.SECONDS)) {
            client.destroyForcibly();
            throw new IllegalStateException("the TypeScript client did not finish: " + output.getNow(""));
        }
        String printed = output.get(10, TimeUnit.SECONDS).strip();
        if (client.exitValue() != 0) {
            throw new IllegalStateException("the TypeScript client failed:\n" + printed);
        }
        return printed.substring(printed.lastIndexOf('\n') + 1);
    }

    /** Key rotation: the server comes back on the same port signing with a new key (new kid). */
    public void rotate() throws Exception {
        stop();
        key = newKey("key-" + System.nanoTime());
        launch();
    }

    private void launch() throws Exception {
        Files.writeString(keyFile, new JWKSet(key).toString(false));
        ProcessBuilder builder = new ProcessBuilder("node", "authorization-server.mjs")
                .directory(DIRECTORY.toFile())
                .redirectErrorStream(true);
        builder.environment().put("PORT", Integer.toString(port));
        builder.environment().put("RESOURCE", resource);
        builder.environment().put("JWKS_FILE", keyFile.toAbsolutePath().toString());
        builder.environment().put("STOP_WITH_STDIN", "1");
        process = builder.start();
        BufferedReader output =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<Void> ready = CompletableFuture.runAsync(() -> {
            try {
                for (String line; (line = output.readLine()) != null; ) {
                    if (line.startsWith("ready ")) {
                        return;
                    }
                    System.err.println("[authorization server] " + line);
                }
                throw new IllegalStateException("the authorization server stopped before it was ready");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        ready.get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        // Keep draining its output so it never blocks on a full pipe.
        Thread drain =
                new Thread(() -> output.lines().forEach(line -> System.err.println("[authorization server] " + line)));
        drain.setDaemon(true);
        drain.start();
    }

    private void stop() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        stop();
    }

    public static RSAKey newKey(String kid) throws JOSEException {
        return new RSAKeyGenerator(2048).keyID(kid).keyUse(KeyUse.SIGNATURE).generate();
    }

    /** {@code npm ci} once into the git-ignored node_modules; skips the calling test class without npm. */
    private static synchronized void installPackages() throws Exception {
        JsonNode dependencies =
                Json.parse(Files.readString(DIRECTORY.resolve("package.json"))).path("dependencies");
        boolean installed = true;
        for (java.util.Iterator<String> names = dependencies.fieldNames(); names.hasNext(); ) {
            installed &= Files.isRegularFile(
                    DIRECTORY.resolve("node_modules").resolve(names.next()).resolve("package.json"));
        }
        if (installed) {
            return;
        }
        Assumptions.assumeTrue(
                commandWorks("npm", "--version"),
                "npm is not installed: the tests against a real authorization server (oidc-provider) are skipped");
        Process install = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund")
                .directory(DIRECTORY.toFile())
                .redirectErrorStream(true)
                .start();
        String log = new String(install.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!install.waitFor(5, TimeUnit.MINUTES) || install.exitValue() != 0) {
            throw new IllegalStateException("npm ci in " + DIRECTORY + " failed:\n" + log);
        }
    }

    private static boolean commandWorks(String... command) {
        try {
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            process.getInputStream().readAllBytes();
            return process.waitFor(30, TimeUnit.SECONDS) && process.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** {@code name} in the repository root, found from a module's working directory or the root itself. */
    private static Path repositoryFolder(String name) {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve(name).resolve("package.json"))) {
                return dir.resolve(name);
            }
        }
        throw new IllegalStateException(
                "no " + name + "/package.json above " + Path.of("").toAbsolutePath());
    }

    /** A free loopback port (for servers whose URL must be known before they start). */
    public static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
