package dev.parley.runtime.internal.state;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Objects;

/** One HMAC-SHA256 key for sealing {@code requestState}, with a short id that names it in tokens. */
public record RequestStateKey(String id, byte[] secret) {

    public RequestStateKey {
        Objects.requireNonNull(id, "id");
        if (id.isEmpty() || id.length() > 32 || !id.matches("[A-Za-z0-9_-]+")) {
            throw new IllegalArgumentException("key id must be 1-32 characters of [A-Za-z0-9_-]");
        }
        if (secret == null || secret.length < 32) {
            throw new IllegalArgumentException("requestState key '" + id + "' must have at least 32 bytes");
        }
        secret = secret.clone();
    }

    /** A key from configuration: the secret is base64 (standard or URL alphabet). */
    public static RequestStateKey fromBase64(String id, String base64Secret) {
        String normalized = base64Secret.trim().replace('-', '+').replace('_', '/');
        return new RequestStateKey(id, Base64.getDecoder().decode(normalized));
    }

    public static RequestStateKey generate() {
        byte[] secret = new byte[32];
        SecureRandom random = new SecureRandom();
        random.nextBytes(secret);
        byte[] id = new byte[4];
        random.nextBytes(id);
        return new RequestStateKey("k" + HexFormat.of().formatHex(id), secret);
    }

    /**
     * The standalone server's key: read from {@code file}, or generated and written there (owner
     * read/write only) so that a restart still opens states sealed before it.
     */
    public static RequestStateKey loadOrCreate(Path file) throws IOException {
        if (Files.exists(file)) {
            String[] parts =
                    Files.readString(file, StandardCharsets.UTF_8).trim().split(":", 2);
            if (parts.length != 2) {
                throw new IOException("malformed requestState key file " + file + " (expected id:base64)");
            }
            return fromBase64(parts[0], parts[1]);
        }
        RequestStateKey key = generate();
        Files.createDirectories(file.toAbsolutePath().getParent());
        Path temp = Files.createTempFile(file.toAbsolutePath().getParent(), "key", ".tmp");
        try {
            Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException ignored) {
            // not a POSIX file system; the directory's permissions apply
        }
        Files.writeString(
                temp, key.id() + ":" + Base64.getEncoder().encodeToString(key.secret), StandardCharsets.UTF_8);
        Files.move(temp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        return key;
    }

    @Override
    public byte[] secret() {
        return secret.clone();
    }

    /** Keys are equal when id and secret are (a record would compare the arrays by identity). */
    @Override
    public boolean equals(Object other) {
        return other instanceof RequestStateKey key
                && id.equals(key.id)
                && java.security.MessageDigest.isEqual(secret, key.secret);
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }

    @Override
    public String toString() {
        return "RequestStateKey[" + id + "]";
    }
}
