package com.example.mcp;

import dev.parley.http.ParleyServer;

/** {@code java -jar target/my-mcp-server.jar [--port P] [--data DIR] [--config FILE] [--stdio]} */
public final class Main {
    private Main() {}

    // snippet: starter_main
    public static void main(String[] args) throws Exception {
        ParleyServer.run(TicketTools.definition(), args);
    }
    // end snippet
}
