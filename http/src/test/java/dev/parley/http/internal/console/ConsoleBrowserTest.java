package dev.parley.http.internal.console;

import static dev.parley.testing.McpAssertions.assertCompleted;
import static dev.parley.testing.McpAssertions.assertInputRequired;
import static dev.parley.testing.McpTestClient.accept;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.http.McpHttpServer;
import dev.parley.runtime.Json;
import dev.parley.testing.McpTestClient;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console in a real headless Chromium (Debian's chromium and chromium-driver, through
 * Selenium) against a real node after a known load: the overview shows what {@code /metrics}
 * shows, a three-round call's timeline shows its rounds and its step, the cancel button cancels a
 * task, and no answer content reaches the page. Screenshots go to {@code target/console/}.
 * Skipped only when Chromium is missing outside CI.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleBrowserTest {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path ARTIFACTS = Path.of("target", "console");
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    static Path data;

    private static McpHttpServer server;
    private static McpTestClient client;
    private static ChromeDriver browser;
    private static String taskId;

    @BeforeAll
    static void start() throws IOException {
        boolean installed = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
        if (!installed && System.getenv("CI") == null) {
            assumeTrue(
                    false,
                    "chromium and chromium-driver are not installed (apt-get install -y chromium chromium-driver); "
                            + "the console's browser tests are skipped outside CI");
        }
        assertTrue(installed, "CI must install chromium and chromium-driver (.ci/run)");
        Files.createDirectories(ARTIFACTS);
        server = ConsoleNode.start(data, "");
        client = new McpTestClient(server.port());
        knownLoad();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments(
                "--headless=new",
                "--no-sandbox",
                "--disable-dev-shm-usage",
                "--disable-gpu",
                "--window-size=1280,1400",
                "--disable-extensions",
                "--no-first-run");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .build();
        browser = new ChromeDriver(service, options);
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

    /**
     * 5 echo calls, 2 unknown methods (-32601), a completed three-round plan_trip, an ask left
     * waiting for its answer, and a long_job task that works until cancelled.
     */
    private static void knownLoad() {
        for (int i = 0; i < 5; i++) {
            ObjectNode echo = client.toolCall("echo", Json.object().put("text", "e" + i));
            assertCompleted(client.send(echo), echo);
        }
        for (int i = 0; i < 2; i++) {
            assertEquals(
                    -32601,
                    client.send(client.request("no/such", Json.object())).errorCode());
        }
        ObjectNode trip = client.toolCall("plan_trip", Json.object().put("traveller", "Ada"));
        String state =
                assertInputRequired(client.send(trip), trip).get("requestState").asText();
        ObjectNode second =
                client.retry(trip, state, accept("destination", Json.object().put("city", ConsoleNode.SECRET)));
        state = assertInputRequired(client.send(second), second)
                .get("requestState")
                .asText();
        ObjectNode third =
                client.retry(trip, state, accept("meal", Json.object().put("choice", ConsoleNode.SECRET + "-meal")));
        assertTrue(assertCompleted(client.send(third), third).toString().contains(ConsoleNode.SECRET));
        ObjectNode ask = client.toolCall("ask", Json.object().put("text", "hi"));
        assertInputRequired(client.send(ask), ask);
        ObjectNode job = client.toolCall("long_job", Json.object().put("text", "the report"), McpTestClient.WITH_TASKS);
        McpTestClient.Reply created = client.send(job);
        assertEquals("task", created.resultType(), created.body());
        taskId = created.taskId();
    }

    private static String console(String hash) {
        return "http://127.0.0.1:" + server.managementPort() + "/console/" + hash;
    }

    private static String scrape() {
        return ConsoleNode.get(URI.create("http://127.0.0.1:" + server.managementPort() + "/metrics"), Map.of())
                .body();
    }

    @Test
    @Order(1)
    void theOverviewShowsTheNumbersTheMetricsEndpointShows() throws IOException {
        // The journal gauges are refreshed every 200 ms: wait for the waiting call and the working task.
        awaitScrape("parley_calls_waiting", Map.of(), 1);
        awaitScrape("parley_tasks_open", Map.of("status", "working"), 1);
        // No refresh while the numbers are read (a refresh re-renders the page).
        browser.get(console("?refresh=3600000#/"));
        WebDriverWait wait = new WebDriverWait(browser, WAIT);
        wait.until(
                ExpectedConditions.presenceOfElementLocated(By.cssSelector("[data-method='tools/call'] [data-count]")));
        String metrics = scrape();
        String count = "mcp_server_operation_duration_seconds_count";

        for (String method : List.of("tools/call", "tasks/get", "_other")) {
            double expected = ConsoleNode.sum(metrics, count, Map.of("mcp_method_name", method));
            if (expected > 0) {
                assertEquals(
                        (long) expected, Long.parseLong(cellOf("[data-method='" + method + "'] [data-count]")), method);
            }
        }
        assertEquals(10, (long) ConsoleNode.sum(metrics, count, Map.of("mcp_method_name", "tools/call")));
        assertEquals(
                (long) ConsoleNode.sum(metrics, count, Map.of()),
                Long.parseLong(text("[data-metric='requests-total']")));
        assertEquals(2, (long) ConsoleNode.sum(metrics, count, Map.of("rpc_response_status_code", "-32601")));
        assertEquals("2", cellOf("[data-error-code='-32601'] [data-count]"));
        assertEquals(
                String.valueOf((long) ConsoleNode.sum(metrics, "parley_calls_waiting", Map.of())),
                text("[data-metric='calls-waiting']"));
        assertEquals("1", text("[data-metric='calls-waiting']"));
        assertEquals(
                String.valueOf((long) ConsoleNode.sum(metrics, "parley_tasks_open", Map.of("status", "working"))),
                text("[data-metric='tasks-working']"));
        assertEquals("1", text("[data-metric='tasks-working']"));
        assertEquals(
                String.valueOf((long) ConsoleNode.sum(metrics, "parley_tasks_total", Map.of("status", "working"))),
                browser.findElement(By.cssSelector("[data-task-status='working'] [data-reached]"))
                        .getAttribute("data-reached"));

        // Latency per tool: the bucket bound that holds the quantile, as histogram_quantile bounds it.
        for (String tool : List.of("echo", "plan_trip")) {
            double calls = ConsoleNode.sum(metrics, count, Map.of("gen_ai_tool_name", tool));
            assertEquals((long) calls, Long.parseLong(cellOf("[data-tool='" + tool + "'] [data-count]")), tool);
            assertEquals(
                    bucketHolding(metrics, tool, 0.5 * calls),
                    Double.parseDouble(browser.findElement(By.cssSelector("[data-tool='" + tool + "'] [data-p50]"))
                            .getAttribute("data-p50")),
                    1e-9,
                    tool + " p50");
            assertEquals(
                    bucketHolding(metrics, tool, 0.99 * calls),
                    Double.parseDouble(browser.findElement(By.cssSelector("[data-tool='" + tool + "'] [data-p99]"))
                            .getAttribute("data-p99")),
                    1e-9,
                    tool + " p99");
        }

        // The cluster: this node, alone (an embedded journal), with the entities the load started.
        WebElement member = browser.findElement(By.cssSelector("[data-member]"));
        assertTrue(member.getText().contains("alone"), member.getText());
        assertFalse(
                browser.findElements(By.cssSelector("[data-shards='ToolCall']")).isEmpty());
        assertFalse(browser.findElements(By.cssSelector("[data-shards='Task']")).isEmpty());

        // Refreshing every 300 ms, the requests/s chart is drawn from the second refresh on.
        browser.get(console("?refresh=300#/"));
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(".chart canvas")));
        screenshot("overview");
        assertFalse(browser.getPageSource().contains(ConsoleNode.SECRET));
        measurePage();
    }

    @Test
    @Order(2)
    void aThreeRoundCallsTimelineShowsItsRoundsAndItsStep() throws IOException {
        browser.get(console("#/calls?status=any&tool=plan_trip"));
        WebDriverWait wait = new WebDriverWait(browser, WAIT);
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-id]")));
        List<WebElement> rows = browser.findElements(By.cssSelector("tr[data-id]"));
        assertEquals(1, rows.size(), "one plan_trip call");
        assertEquals("completed", rows.get(0).getAttribute("data-status"));
        assertFalse(rows.get(0).getText().contains("anonymous"), "the principal is shown as a digest");
        rows.get(0).findElement(By.cssSelector("a")).click();

        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#rounds tr[data-round]")));
        List<WebElement> rounds = browser.findElements(By.cssSelector("#rounds tr[data-round]"));
        assertEquals(3, rounds.size());
        assertTrue(
                rounds.get(0).getText().contains("destination"), rounds.get(0).getText());
        assertTrue(
                rounds.get(1).getText().contains("destination: accept"),
                rounds.get(1).getText());
        assertTrue(
                rounds.get(1).getText().contains("reserve_seat"), rounds.get(1).getText());
        assertTrue(rounds.get(1).getText().contains("meal"), rounds.get(1).getText());
        assertTrue(
                rounds.get(2).getText().contains("meal: accept"), rounds.get(2).getText());
        assertTrue(rounds.get(2).getText().contains("completed"), rounds.get(2).getText());
        List<WebElement> steps = browser.findElements(By.cssSelector("#steps tr[data-step='reserve_seat']"));
        assertEquals(1, steps.size());
        assertTrue(browser.findElement(By.id("outcome")).getText().contains("completed"));
        assertTrue(browser.getPageSource().contains("content redacted"));
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(".chart canvas")));
        screenshot("timeline");
        assertFalse(browser.getPageSource().contains(ConsoleNode.SECRET), "no answer content in the page");
    }

    @Test
    @Order(3)
    void theCancelButtonCancelsATask() throws IOException {
        browser.get(console("#/tasks"));
        WebDriverWait wait = new WebDriverWait(browser, WAIT);
        WebElement button =
                wait.until(ExpectedConditions.elementToBeClickable(By.cssSelector("[data-cancel='" + taskId + "']")));
        screenshot("tasks");
        button.click();
        wait.until(ExpectedConditions.alertIsPresent()).accept();
        // The list refreshes without the task (open tasks only); the protocol sees it cancelled.
        try {
            wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("[data-cancel='" + taskId + "']"), 0));
        } catch (org.openqa.selenium.TimeoutException e) {
            screenshot("tasks-cancel-failed");
            throw new AssertionError("the task is still listed; the console says: " + text("#status"), e);
        }
        McpTestClient.Reply status = client.send(client.taskRequest("tasks/get", taskId));
        assertEquals("cancelled", status.result().path("status").asText(), status.body());

        browser.get(console("#/task/" + taskId));
        wait.until(ExpectedConditions.textToBe(By.id("timeline-status"), "cancelled"));
        assertTrue(browser.findElement(By.id("outcome")).getText().contains("cancelled"));
        screenshot("task-cancelled");
    }

    @Test
    @Order(4)
    void noAnswerContentReachesTheConsoleByDefault() {
        for (String hash : List.of("#/", "#/calls?status=any", "#/tasks?status=any")) {
            browser.get(console(hash));
            new WebDriverWait(browser, WAIT)
                    .until(ExpectedConditions.textMatches(By.id("status"), java.util.regex.Pattern.compile("updated")));
            assertFalse(browser.getPageSource().contains(ConsoleNode.SECRET), hash);
        }
        // The JSON itself: answers by key and action, their contents redacted; no arguments, step values or result.
        String calls = ConsoleNode.get(URI.create(console("api/calls?status=any&tool=plan_trip")), Map.of())
                .body();
        String id = Json.parse(calls).path("items").get(0).path("id").asText();
        String timeline = ConsoleNode.get(
                        URI.create("http://127.0.0.1:" + server.managementPort() + "/console/api/calls/" + id),
                        Map.of())
                .body();
        assertFalse(timeline.contains(ConsoleNode.SECRET), timeline);
        JsonNode answers = Json.parse(timeline).path("rounds").get(1).path("answers");
        assertEquals("destination", answers.get(0).path("key").asText());
        assertTrue(answers.get(0).path("redacted").asBoolean());
        assertTrue(answers.get(0).path("content").isMissingNode());
        assertTrue(Json.parse(timeline).path("arguments").isMissingNode());
    }

    /**
     * Page weight (bytes transferred, from the Resource Timing API) and load time (Navigation
     * Timing) of five loads of the overview, for the note; nothing about them is asserted.
     */
    private static void measurePage() throws IOException {
        List<Object> loads = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            browser.get(console("?refresh=3600000&load=" + i + "#/"));
            new WebDriverWait(browser, WAIT)
                    .until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("[data-metric]")));
            new WebDriverWait(browser, WAIT)
                    .until(
                            driver -> (Boolean)
                                    ((JavascriptExecutor) driver)
                                            .executeScript(
                                                    "const nav = performance.getEntriesByType('navigation')[0]; return nav && nav.loadEventEnd > 0;"));
            loads.add(((JavascriptExecutor) browser)
                    .executeScript("const nav = performance.getEntriesByType('navigation')[0];"
                            + "const assets = performance.getEntriesByType('resource').filter(r => r.initiatorType !== 'fetch');"
                            + "const api = performance.getEntriesByType('resource').filter(r => r.initiatorType === 'fetch');"
                            + "const sum = (list, key) => list.reduce((total, r) => total + r[key], 0);"
                            + "return { pageAndAssetsTransferredBytes: nav.transferSize + sum(assets, 'transferSize'),"
                            + " pageAndAssetsDecodedBytes: nav.decodedBodySize + sum(assets, 'decodedBodySize'),"
                            + " firstOverviewJsonBytes: api.length ? api[0].transferSize : 0,"
                            + " domContentLoadedMs: Math.round(nav.domContentLoadedEventEnd - nav.startTime),"
                            + " loadEventMs: Math.round(nav.loadEventEnd - nav.startTime), assets: assets.length };"));
        }
        Files.writeString(ARTIFACTS.resolve("page-weight.json"), Json.write(Map.of("loads", loads)));
    }

    private static double bucketHolding(String metrics, String tool, double rank) {
        TreeMap<Double, Double> cumulative = new TreeMap<>();
        for (String line : metrics.split("\n")) {
            if (line.startsWith("mcp_server_operation_duration_seconds_bucket{")
                    && line.contains("gen_ai_tool_name=\"" + tool + "\"")
                    && !line.contains("le=\"+Inf\"")) {
                String le = line.replaceAll(".*le=\"([^\"]+)\".*", "$1");
                cumulative.merge(
                        Double.parseDouble(le),
                        Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)),
                        Double::sum);
            }
        }
        return cumulative.entrySet().stream()
                .filter(bucket -> bucket.getValue() >= rank)
                .findFirst()
                .map(Map.Entry::getKey)
                .orElse(Double.NaN);
    }

    private static void awaitScrape(String name, Map<String, String> labels, double expected) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        double value;
        do {
            value = ConsoleNode.sum(scrape(), name, labels);
            if (value == expected) {
                return;
            }
            sleep(100);
        } while (System.nanoTime() < deadline);
        assertEquals(expected, value, name);
    }

    private static String text(String css) {
        return browser.findElement(By.cssSelector(css)).getText().trim();
    }

    private static String cellOf(String css) {
        return text(css);
    }

    private static void screenshot(String name) throws IOException {
        File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
        Files.copy(shot.toPath(), ARTIFACTS.resolve(name + ".png"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
