package dev.parley.runtime.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Where {@link CallerRuns} runs a blocking handler, with real threads and a real fork-join pool. */
class CallerRunsTest {
    private static final long WAIT_SECONDS = 10;

    private final ExecutorService toolExecutor = Executors.newFixedThreadPool(1, work -> new Thread(work, "tool"));
    /** One worker, like a request's dispatcher on a small machine: only a managed block lets it serve more. */
    private final ForkJoinPool dispatcher = new ForkJoinPool(1);

    @AfterEach
    void stop() {
        toolExecutor.shutdownNow();
        dispatcher.shutdownNow();
    }

    private static void await(CountDownLatch latch) throws InterruptedException {
        assertTrue(latch.await(WAIT_SECONDS, TimeUnit.SECONDS), "within " + WAIT_SECONDS + " s");
    }

    /**
     * Blocks a run on the dispatcher's only worker until another task of the dispatcher ran: that
     * task runs only on a worker the pool adds, which it does for a managed block alone.
     */
    private void waitForAnotherTaskOfTheDispatcher(CountDownLatch otherTaskRan) {
        dispatcher.execute(otherTaskRan::countDown);
        try {
            await(otherTaskRan);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A run that says it is {@code holding}, then waits for {@code release}. */
    private static Runnable holdingUntil(CountDownLatch holding, CountDownLatch release) {
        return () -> {
            holding.countDown();
            try {
                await(release);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        };
    }

    /** The name of the thread a run given to {@code executor} ran on. */
    private static String threadOfARunOn(Executor executor) throws InterruptedException {
        AtomicReference<String> ranOn = new AtomicReference<>();
        CountDownLatch ran = new CountDownLatch(1);
        executor.execute(() -> {
            ranOn.set(Thread.currentThread().getName());
            ran.countDown();
        });
        await(ran);
        return ranOn.get();
    }

    @Test
    void onAForkJoinWorkerTheWorkRunsOnTheCallingThreadWhileThePoolServesOthers() throws Exception {
        CallerRuns runs = new CallerRuns(toolExecutor, 4);
        CountDownLatch otherTaskRan = new CountDownLatch(1);
        AtomicReference<Thread> ranOn = new AtomicReference<>();

        Future<Thread> caller = dispatcher.submit(() -> {
            runs.execute(() -> {
                ranOn.set(Thread.currentThread());
                waitForAnotherTaskOfTheDispatcher(otherTaskRan);
            });
            return Thread.currentThread();
        });

        assertEquals(caller.get(WAIT_SECONDS, TimeUnit.SECONDS), ranOn.get(), "run on the calling thread");
        assertEquals(0, otherTaskRan.getCount());
    }

    @Test
    void offAForkJoinWorkerTheWorkGoesToTheToolExecutor() throws Exception {
        CallerRuns runs = new CallerRuns(toolExecutor, 4);

        assertEquals("tool", threadOfARunOn(runs));
    }

    @Test
    void whenEverySlotIsTakenTheWorkGoesToTheToolExecutor() throws Exception {
        CallerRuns runs = new CallerRuns(toolExecutor, 1);
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Future<?> first = dispatcher.submit(() -> runs.execute(holdingUntil(holding, release)));
        await(holding);

        // from a worker of the dispatcher, as a request's first round is
        assertEquals(
                "tool", threadOfARunOn(work -> dispatcher.execute(() -> runs.execute(work))), "the one slot is held");

        release.countDown();
        first.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    @Test
    void stopInterruptsARunUnderWayAndLeavesNoInterruptOnTheWorker() throws Exception {
        CallerRuns runs = new CallerRuns(toolExecutor, 4);
        CountDownLatch running = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        Future<Boolean> workerInterruptedAfter = dispatcher.submit(() -> {
            runs.execute(() -> {
                running.countDown();
                try {
                    Thread.sleep(TimeUnit.SECONDS.toMillis(WAIT_SECONDS * 3));
                } catch (InterruptedException e) {
                    interrupted.set(true);
                }
            });
            return Thread.currentThread().isInterrupted();
        });
        await(running);

        runs.stop();

        assertFalse(workerInterruptedAfter.get(WAIT_SECONDS, TimeUnit.SECONDS), "the worker keeps no interrupt");
        assertTrue(interrupted.get(), "the run saw the interrupt");
        AtomicReference<String> ranOn = new AtomicReference<>();
        dispatcher
                .submit(() ->
                        runs.execute(() -> ranOn.set(Thread.currentThread().getName())))
                .get(WAIT_SECONDS, TimeUnit.SECONDS);
        toolExecutor.shutdown();
        assertTrue(toolExecutor.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS));
        assertEquals("tool", ranOn.get(), "after stop, runs go to the tool executor");
    }

    @Test
    void aPostedRunRunsOnAPoolWorkerWhileThePoolServesOthers() throws Exception {
        CallerRuns runs = new CallerRuns(toolExecutor, 4);
        CountDownLatch otherTaskRan = new CountDownLatch(1);
        CountDownLatch ran = new CountDownLatch(1);
        AtomicReference<Thread> ranOn = new AtomicReference<>();

        // posted from a thread of neither pool, as an entity's round is posted from its actor's thread
        runs.postingTo(dispatcher).execute(() -> {
            ranOn.set(Thread.currentThread());
            waitForAnotherTaskOfTheDispatcher(otherTaskRan);
            ran.countDown();
        });

        await(ran);
        assertTrue(ranOn.get() instanceof ForkJoinWorkerThread, "ran on a worker of the pool: " + ranOn.get());
        assertEquals(0, otherTaskRan.getCount());
    }

    @Test
    void aPostedRunGoesToTheToolExecutorWhenEverySlotIsTakenOrThePoolIsNotForkJoin() throws Exception {
        CallerRuns runs = new CallerRuns(toolExecutor, 1);
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        runs.postingTo(dispatcher).execute(holdingUntil(holding, release));
        await(holding);

        assertEquals("tool", threadOfARunOn(runs.postingTo(dispatcher)), "the one slot is held");
        release.countDown();

        ExecutorService plainPool = Executors.newSingleThreadExecutor(work -> new Thread(work, "plain"));
        try {
            assertEquals(
                    "tool",
                    threadOfARunOn(runs.postingTo(plainPool)),
                    "a thread that cannot be compensated does not block");
        } finally {
            plainPool.shutdownNow();
        }
    }

    @Test
    void afterStopPostedRunsGoToTheToolExecutor() throws Exception {
        CallerRuns runs = new CallerRuns(toolExecutor, 4);
        runs.stop();

        assertEquals("tool", threadOfARunOn(runs.postingTo(dispatcher)));
    }
}
