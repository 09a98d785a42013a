package dev.parley.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class SseFeedTest {
    private static final ByteString KEEP_ALIVE = ByteString.fromString(":\n\n");
    private static ActorSystem system;

    @BeforeAll
    static void start() {
        system = ActorSystem.create("sse-feed-test");
    }

    @AfterAll
    static void stop() {
        system.terminate();
    }

    private static Source<ByteString, SseFeed.Queue> feed(int capacity, Duration keepAlive, Runnable ended) {
        return Source.fromGraph(
                new SseFeed(capacity, keepAlive, KEEP_ALIVE, message -> ByteString.fromString(message + "\n"), ended));
    }

    private static String text(List<ByteString> frames) {
        return frames.stream().map(ByteString::utf8String).reduce("", String::concat);
    }

    @Test
    void sendsWhatWasOfferedBeforeAndAfterItRanThenEndsOnComplete() throws Exception {
        CountDownLatch ended = new CountDownLatch(1);
        Pair<SseFeed.Queue, CompletionStage<List<ByteString>>> running = feed(
                        8, Duration.ofSeconds(30), ended::countDown)
                .toMat(Sink.seq(), Keep.both())
                .run(system);
        SseFeed.Queue queue = running.first();
        queue.offer("one");
        queue.offer("two");
        queue.complete();
        queue.offer("after the end");

        assertEquals("one\ntwo\n", text(running.second().toCompletableFuture().get(5, TimeUnit.SECONDS)));
        assertTrue(ended.await(5, TimeUnit.SECONDS), "ended ran");
    }

    @Test
    void aQuietStreamGetsKeepAliveFrames() throws Exception {
        Pair<SseFeed.Queue, CompletionStage<List<ByteString>>> running = feed(8, Duration.ofMillis(100), () -> {})
                .take(3)
                .toMat(Sink.seq(), Keep.both())
                .run(system);
        running.first().offer("hello");

        List<ByteString> frames = running.second().toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertEquals(List.of(ByteString.fromString("hello\n"), KEEP_ALIVE, KEEP_ALIVE), frames);
    }

    @Test
    void aSlowReaderLosesTheOldestMessagesBeyondTheCapacity() throws Exception {
        AtomicReference<SseFeed.Queue> queue = new AtomicReference<>();
        CountDownLatch firstTaken = new CountDownLatch(1);
        CompletableFuture<Void> reading = new CompletableFuture<>();
        // The reader takes the first frame, then nothing until the test lets it go on.
        CompletionStage<List<ByteString>> frames = feed(2, Duration.ofSeconds(30), () -> {})
                .mapMaterializedValue(running -> {
                    queue.set(running);
                    return running;
                })
                .mapAsync(1, frame -> {
                    firstTaken.countDown();
                    return reading.thenApply(go -> frame);
                })
                .runWith(Sink.seq(), system);
        queue.get().offer("1");
        assertTrue(firstTaken.await(5, TimeUnit.SECONDS), "the reader took the first frame");
        for (String message : List.of("2", "3", "4", "5")) {
            queue.get().offer(message);
        }
        queue.get().complete();
        // The stage takes the offers on the stream's thread; the reader goes on once they are in its buffer.
        Thread.sleep(1000);
        reading.complete(null);

        assertEquals("1\n4\n5\n", text(frames.toCompletableFuture().get(5, TimeUnit.SECONDS)));
    }

    @Test
    void endedRunsWhenTheReaderLeaves() throws Exception {
        CountDownLatch ended = new CountDownLatch(1);
        Pair<SseFeed.Queue, CompletionStage<List<ByteString>>> running = feed(
                        8, Duration.ofSeconds(30), ended::countDown)
                .take(1)
                .toMat(Sink.seq(), Keep.both())
                .run(system);
        running.first().offer("only this");

        assertEquals("only this\n", text(running.second().toCompletableFuture().get(5, TimeUnit.SECONDS)));
        assertTrue(ended.await(5, TimeUnit.SECONDS), "ended ran after the reader cancelled");
    }
}
