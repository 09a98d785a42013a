package dev.parley.http.internal.console;

import dev.parley.persistence.JournalDatabase;
import dev.parley.persistence.internal.JournalBrowser;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;

/**
 * The journal a node's console reads. pekko-management creates the console's routes by
 * reflection with only the actor system, so the server that started the node leaves its journal
 * database here first ({@link #use}).
 */
public final class ConsoleJournal implements Extension {
    private static final ExtensionId<ConsoleJournal> ID = new ExtensionId<>() {
        @Override
        public ConsoleJournal createExtension(ActorSystem<?> system) {
            return new ConsoleJournal();
        }
    };

    private volatile JournalBrowser browser;

    public static ConsoleJournal get(ActorSystem<?> system) {
        return ID.apply(system);
    }

    public void use(JournalDatabase database) {
        this.browser = new JournalBrowser(database);
    }

    /** Empty until the node's server named its journal. */
    Optional<JournalBrowser> browser() {
        return Optional.ofNullable(browser);
    }
}
