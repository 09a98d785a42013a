package dev.parley.http.internal;

import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.http.javadsl.model.AttributeKey;

/**
 * What runs when a streamed response body stops, however it stops (sent, failed, or left by the
 * client). A response whose body reports its own end carries one as {@link #ATTRIBUTE}; the layers
 * it passes on its way out (the request observer, the connection guard) add their work to it
 * instead of each wrapping the body in a termination watcher of its own, which is a stage set up
 * for every stream and passed every frame.
 */
public final class StreamEnd {
    public static final AttributeKey<StreamEnd> ATTRIBUTE = AttributeKey.create("parley-stream-end", StreamEnd.class);

    /** What runs at the end; null once it ran. */
    private List<Runnable> hooks = new ArrayList<>(3);

    /** Runs {@code hook} when the body stops; at once if it stopped already. */
    public void onEnd(Runnable hook) {
        synchronized (this) {
            if (hooks != null) {
                hooks.add(hook);
                return;
            }
        }
        hook.run();
    }

    /** The body stopped: runs what was added, in that order, once. */
    void ended() {
        List<Runnable> ending;
        synchronized (this) {
            ending = hooks;
            hooks = null;
        }
        if (ending != null) {
            ending.forEach(Runnable::run);
        }
    }
}
