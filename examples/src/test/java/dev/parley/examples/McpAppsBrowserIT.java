package dev.parley.examples;

import static dev.parley.testing.McpAssertions.assertCompleted;
import static dev.parley.testing.McpAssertions.assertResult;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.http.McpHttpServer;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * book_venue's calendar view in a real headless Chromium: a small host page (test resource
 * {@code apps/test-host.html}) renders the HTML that {@code resources/read} returns in a sandboxed
 * iframe, speaks the MCP Apps handshake with it, and passes the view's {@code tools/call} of the
 * app-only {@code venue_calendar} to the demo server. The calendar shows the taken day the
 * server reports. Screenshot in {@code target/apps/}. Skipped only when Chromium is missing outside CI.
 */
class McpAppsBrowserIT {
    private static final String APPS =
            "{\"extensions\":{\"io.modelcontextprotocol/ui\":" + "{\"mimeTypes\":[\"text/html;profile=mcp-app\"]}}}";
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path ARTIFACTS = Path.of("target", "apps");
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    static Path data;

    private static McpHttpServer server;
    private static McpTestClient client;
    private static ChromeDriver browser;

    @BeforeAll
    static void start() throws Exception {
        boolean installed = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
        if (!installed && System.getenv("CI") == null) {
            assumeTrue(
                    false,
                    "chromium and chromium-driver are not installed; the MCP Apps browser test is skipped outside CI");
        }
        assertTrue(installed, "CI must install chromium and chromium-driver (.ci/run)");
        Files.createDirectories(ARTIFACTS);
        server = Launcher.startDemo(0, data);
        client = new McpTestClient(server.port());
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments(
                "--headless=new",
                "--no-sandbox",
                "--disable-dev-shm-usage",
                "--disable-gpu",
                "--window-size=800,600",
                "--disable-extensions",
                "--no-first-run",
                "--allow-file-access-from-files");
        browser = new ChromeDriver(
                new ChromeDriverService.Builder()
                        .usingDriverExecutable(CHROMEDRIVER.toFile())
                        .usingAnyFreePort()
                        .build(),
                options);
        browser.manage().timeouts().pageLoadTimeout(WAIT).scriptTimeout(WAIT);
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void theCalendarViewShowsTheTakenDayTheServerReports() throws Exception {
        ObjectNode read =
                client.request("resources/read", Json.object().put("uri", "ui://parley-demo/venue-calendar"), APPS);
        String html = assertResult(client.send(read), read, "ReadResourceResult")
                .at("/contents/0/text")
                .asText();

        Path host = ARTIFACTS.resolve("test-host.html");
        try (var in = McpAppsBrowserIT.class.getResourceAsStream("/apps/test-host.html")) {
            Files.copy(in, host, StandardCopyOption.REPLACE_EXISTING);
        }
        browser.get(host.toAbsolutePath().toUri().toString());
        JavascriptExecutor page = browser;
        page.executeScript("window.startView(arguments[0], {date: '2026-12-24', guests: 40});", html);

        // The view asks the host for venue_calendar; the test is the host's connection to the server.
        WebDriverWait wait = new WebDriverWait(browser, WAIT);
        wait.until(driver -> !((List<?>) page.executeScript("return window.hostRequests;")).isEmpty());
        @SuppressWarnings("unchecked")
        Map<String, Object> request = (Map<String, Object>) page.executeScript("return window.hostRequests.shift();");
        JsonNode params = Json.tree(request.get("params"));
        assertEquals("venue_calendar", params.path("name").asText());
        assertEquals("2026-12", params.at("/arguments/month").asText());
        ObjectNode call = client.toolCall("venue_calendar", (ObjectNode) params.path("arguments"), APPS);
        JsonNode result = assertCompleted(client.send(call), call);
        page.executeScript(
                "window.fulfil(arguments[0], JSON.parse(arguments[1]));", request.get("id"), Json.write(result));

        browser.switchTo().frame(browser.findElement(By.id("view")));
        wait.until(driver -> driver.findElement(By.id("status")).getText().equals("2026-12-24 is taken."));
        WebElement taken = browser.findElement(By.cssSelector("td[title='2026-12-24 taken']"));
        assertTrue(taken.getAttribute("class").contains("taken")
                && taken.getAttribute("class").contains("asked"));
        assertTrue(browser.findElements(By.cssSelector("td.free")).size() >= 25, "the other days are free");
        assertEquals(
                "Venue calendar, 2026-12", browser.findElement(By.id("title")).getText());
        browser.switchTo().defaultContent();

        // The tool's result reaches the view as a notification, as a host sends it after the call.
        page.executeScript("window.toolResult({content: [{type: 'text', text: 'Booked 2026-12-27 for 40 guests.'}]});");
        browser.switchTo().frame(browser.findElement(By.id("view")));
        wait.until(driver -> driver.findElement(By.id("status")).getText().equals("Booked 2026-12-27 for 40 guests."));
        browser.switchTo().defaultContent();
        Files.write(ARTIFACTS.resolve("venue-calendar.png"), browser.getScreenshotAs(OutputType.BYTES));
        assertEquals(
                List.of("ui/initialize", "ui/notifications/initialized", "tools/call"),
                page.executeScript("return window.hostLog;"));
    }
}
