package dev.parley.actors.internal.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.parley.actors.internal.SessionEntity;
import dev.parley.runtime.Json;
import java.time.Duration;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A node's copies of sessions: kept per principal, dropped on a change here or on another node, and aged out. */
class SessionViewsTest {
    private static final SessionEntity.SessionView VIEW =
            new SessionEntity.SessionView("2025-11-25", Json.object(), null, Set.of());
    private static ActorSystem<Void> system;

    @BeforeAll
    static void start() {
        system = ActorSystem.create(Behaviors.empty(), "session-views-test");
    }

    @AfterAll
    static void stop() {
        system.terminate();
    }

    @Test
    void aCopyIsOnlyItsPrincipals() {
        SessionViews views = new SessionViews(system, Duration.ofMinutes(1));
        views.keep("s1", "alice", VIEW, views.changesSoFar());
        assertEquals(VIEW, views.find("s1", "alice"));
        assertNull(views.find("s1", "mallory"), "to anyone else the session is not known here");
        assertNull(views.find("s2", "alice"));
    }

    @Test
    void aViewAskedForBeforeAChangeIsNotKept() {
        SessionViews views = new SessionViews(system, Duration.ofMinutes(1));
        long before = views.changesSoFar();
        views.changed("s1"); // the change overtook the ask that read "before"
        views.keep("s1", "alice", VIEW, before);
        assertNull(views.find("s1", "alice"));

        views.keep("s1", "alice", VIEW, views.changesSoFar());
        assertEquals(VIEW, views.find("s1", "alice"));
        views.changed("s1");
        assertNull(views.find("s1", "alice"), "a change through this node drops the copy at once");
    }

    @Test
    @Timeout(30)
    void aChangeMadeThroughAnotherNodeDropsTheCopyHere() throws InterruptedException {
        SessionViews here = new SessionViews(system, Duration.ofMinutes(1));
        SessionViews there = new SessionViews(system, Duration.ofMinutes(1));
        here.keep("s3", "alice", VIEW, here.changesSoFar());
        // the two topics find each other through the receptionist: publish until the message gets across
        while (here.find("s3", "alice") != null) {
            there.changed("s3");
            Thread.sleep(50);
        }
        assertNull(here.find("s3", "alice"));
    }

    @Test
    void aCopyAgesOutAndNoneIsKeptWithALifetimeOfZero() throws InterruptedException {
        SessionViews shortLived = new SessionViews(system, Duration.ofMillis(50));
        shortLived.keep("s4", "alice", VIEW, shortLived.changesSoFar());
        Thread.sleep(120);
        assertNull(shortLived.find("s4", "alice"), "asked for again once older than its lifetime");

        SessionViews off = new SessionViews(system, Duration.ZERO);
        off.keep("s5", "alice", VIEW, off.changesSoFar());
        assertNull(off.find("s5", "alice"));
    }
}
