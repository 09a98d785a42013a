package dev.parley.http.internal;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.function.Function;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.SourceShape;
import org.apache.pekko.stream.stage.AbstractGraphStageWithMaterializedValue;
import org.apache.pekko.stream.stage.AbstractOutHandler;
import org.apache.pekko.stream.stage.AsyncCallback;
import org.apache.pekko.stream.stage.GraphStageLogic;
import org.apache.pekko.stream.stage.TimerGraphStageLogic;
import org.apache.pekko.util.ByteString;

/**
 * The body of one SSE response that is fed from outside: the {@link Queue} it materializes takes
 * messages from any thread, each goes out rendered as one frame, a comment frame keeps a quiet
 * stream alive, and {@code ended} runs however the stream stops (sent, failed or left by the client).
 *
 * <p>One stage instead of Pekko's queue source, termination watcher, map and keep-alive: a
 * 2025-11-25 call opens one such stream per request, and each of those stages was set up for every
 * stream, passed each event on and (the keep-alive) rescheduled a timer at every event.
 */
final class SseFeed extends AbstractGraphStageWithMaterializedValue<SourceShape<ByteString>, SseFeed.Queue> {

    /** Where the stream's messages go in; thread-safe. What comes after {@link #complete} is dropped. */
    interface Queue {
        void offer(Object message);

        /** Ends the stream once what was offered before is sent. */
        void complete();
    }

    private static final String KEEP_ALIVE_TIMER = "keep-alive";
    /** What {@link Queue#complete} sends through the stage's one callback. */
    private static final Object END = new Object();

    private final Outlet<ByteString> out = Outlet.create("SseFeed.out");
    private final SourceShape<ByteString> shape = SourceShape.of(out);
    private final int capacity;
    private final Duration keepAlive;
    private final ByteString keepAliveFrame;
    private final Function<Object, ByteString> render;
    private final Runnable ended;

    /**
     * @param capacity messages held while the client reads slowly; beyond it the oldest is dropped
     * @param render turns a message into its frame, on the stream's thread as it goes out
     */
    SseFeed(
            int capacity,
            Duration keepAlive,
            ByteString keepAliveFrame,
            Function<Object, ByteString> render,
            Runnable ended) {
        this.capacity = capacity;
        this.keepAlive = keepAlive;
        this.keepAliveFrame = keepAliveFrame;
        this.render = render;
        this.ended = ended;
    }

    @Override
    public SourceShape<ByteString> shape() {
        return shape;
    }

    @Override
    public Pair<GraphStageLogic, Queue> createLogicAndMaterializedValuePair(Attributes attributes) {
        Logic logic = new Logic();
        return Pair.create(logic, logic.queue);
    }

    private final class Logic extends TimerGraphStageLogic {
        private final ArrayDeque<Object> buffered = new ArrayDeque<>();
        /*
         * One callback for messages and the end: Pekko keeps the order of one callback's events, also of
         * those that come before the stage runs, but not across two callbacks.
         */
        private final AsyncCallback<Object> received = createAsyncCallback(this::received);
        private final Queue queue = new Queue() {
            @Override
            public void offer(Object message) {
                received.invoke(message);
            }

            @Override
            public void complete() {
                received.invoke(END);
            }
        };
        private boolean completing;
        private long lastSentNanos = System.nanoTime();

        Logic() {
            super(shape);
            setHandler(out, new AbstractOutHandler() {
                @Override
                public void onPull() {
                    if (!buffered.isEmpty()) {
                        send(render.apply(buffered.poll()));
                    }
                    if (completing && buffered.isEmpty()) {
                        completeStage();
                    }
                }
            });
        }

        @Override
        public void preStart() {
            if (!keepAlive.isZero() && !keepAlive.isNegative()) {
                // A check every half interval: a quiet stream gets a comment 1 to 1.5 intervals after its last frame.
                Duration tick = keepAlive.dividedBy(2);
                scheduleWithFixedDelay(KEEP_ALIVE_TIMER, tick, tick);
            }
        }

        @Override
        public void postStop() {
            ended.run();
        }

        private void received(Object message) {
            if (completing) {
                return;
            }
            if (message == END) {
                completing = true;
                if (buffered.isEmpty()) {
                    completeStage();
                }
                return;
            }
            if (buffered.isEmpty() && isAvailable(out)) {
                send(render.apply(message));
                return;
            }
            if (buffered.size() == capacity) {
                buffered.poll(); // the oldest goes: a reader this slow gets the latest
            }
            buffered.add(message);
        }

        @Override
        public void onTimer(Object key) {
            if (isAvailable(out) && System.nanoTime() - lastSentNanos >= keepAlive.toNanos()) {
                send(keepAliveFrame);
            }
        }

        private void send(ByteString frame) {
            lastSentNanos = System.nanoTime();
            push(out, frame);
        }
    }
}
