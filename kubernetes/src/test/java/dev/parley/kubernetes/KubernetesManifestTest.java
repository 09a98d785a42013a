package dev.parley.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValue;
import dev.parley.actors.NodeConfig;
import dev.parley.http.internal.console.ConsoleSettings;
import dev.parley.http.internal.ops.NodeLifecycle;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * deploy/kubernetes as Kubernetes gets it (rendered by {@code kubectl kustomize}, or, without
 * kubectl, the kustomization's resources read directly) against what the code serves and
 * reads: ports, probe paths, the drain timings, the environment of the kubernetes profile and
 * the configuration keys it sets.
 */
class KubernetesManifestTest {
    private static final Path REPOSITORY = Path.of(System.getProperty("parley.repository", ".."))
            .toAbsolutePath()
            .normalize();
    private static final Path DEPLOY = REPOSITORY.resolve("deploy/kubernetes");
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final String POD_IP = "10.0.0.7";

    private static List<JsonNode> manifests;
    private static JsonNode deployment;
    private static JsonNode container;
    /** The profile resolved with the Deployment's environment (downward-API values made up). */
    private static Config profile;
    /** The Deployment's environment, downward-API values made up. */
    private static final Map<String, String> environment = new HashMap<>();
    /** Everything a node has without a profile: reference.conf files and Parley's own defaults. */
    private static Config defaults;

    @BeforeAll
    static void render() throws Exception {
        manifests = rendered();
        deployment = only("Deployment");
        container = deployment.at("/spec/template/spec/containers/0");
        for (JsonNode variable : container.get("env")) {
            String field = variable.at("/valueFrom/fieldRef/fieldPath").asText();
            String value = variable.has("value")
                    ? variable.get("value").asText()
                    : field.equals("status.podIP")
                            ? POD_IP
                            : field.equals("metadata.namespace")
                                    ? deployment.at("/metadata/namespace").asText()
                                    : "from-a-secret";
            environment.put(variable.get("name").asText(), value);
        }
        profile = ConfigFactory.parseMap(environment)
                .withFallback(ConfigFactory.parseResources("kubernetes.conf"))
                .resolve();
        defaults = NodeConfig.load(ConfigFactory.empty());
    }

    @Test
    void aRollingUpdateNeverHasFewerThanThreeReadyPods() {
        assertEquals(3, deployment.at("/spec/replicas").asInt());
        assertEquals("RollingUpdate", deployment.at("/spec/strategy/type").asText());
        assertEquals(
                0, deployment.at("/spec/strategy/rollingUpdate/maxUnavailable").asInt());
        assertTrue(deployment.at("/spec/strategy/rollingUpdate/maxSurge").asInt() >= 1);
        JsonNode budget = only("PodDisruptionBudget");
        int minAvailable = budget.at("/spec/minAvailable").asInt();
        assertTrue(minAvailable > 3 / 2 && minAvailable < 3, "a majority stays, one pod may go: " + minAvailable);
        assertEquals("parley", budget.at("/spec/selector/matchLabels/app").asText());
    }

    @Test
    void portsAreTheOnesTheProfileListensOn() {
        Map<String, Integer> ports = containerPorts();
        assertEquals(profile.getInt("parley.http.port"), ports.get("mcp"));
        assertEquals(profile.getInt("parley.management.port"), ports.get("management"));
        assertEquals(profile.getInt("pekko.remote.artery.canonical.port"), ports.get("remoting"));
        // Bootstrap probes the port of this name on the pods it finds.
        assertTrue(ports.containsKey(
                profile.getString("pekko.management.cluster.bootstrap.contact-point-discovery.port-name")));
        // Everything listens on the pod's IP, from the downward API.
        assertEquals(
                "status.podIP",
                envVariable("POD_IP").at("/valueFrom/fieldRef/fieldPath").asText());
        assertEquals(POD_IP, profile.getString("parley.http.host"));
        assertEquals(POD_IP, profile.getString("parley.management.host"));
        assertEquals(POD_IP, profile.getString("pekko.remote.artery.canonical.hostname"));
    }

    @Test
    void theConsoleIsReachedThroughPortForward() {
        // Management binds every interface of the pod (port-forward connects to its loopback) and
        // tells Cluster Bootstrap's peers the pod IP.
        assertEquals("0.0.0.0", profile.getString("pekko.management.http.bind-hostname"));
        assertEquals(POD_IP, node(environment).getString("pekko.management.http.hostname"));
        // The Deployment names the console's access rule (loopback), and the profile takes it from there.
        assertEquals(
                "loopback", envVariable("PARLEY_CONSOLE_ACCESS").get("value").asText());
        assertEquals(
                ConsoleSettings.Access.LOOPBACK,
                ConsoleSettings.from(node(environment)).access());
        Map<String, String> scoped = new HashMap<>(environment);
        scoped.put("PARLEY_CONSOLE_ACCESS", "scope");
        assertEquals(
                ConsoleSettings.Access.SCOPE, ConsoleSettings.from(node(scoped)).access());
        // Without the variable (an older Deployment) the console stays on loopback.
        Map<String, String> unset = new HashMap<>(environment);
        unset.remove("PARLEY_CONSOLE_ACCESS");
        assertEquals(
                ConsoleSettings.Access.LOOPBACK,
                ConsoleSettings.from(node(unset)).access());
    }

    /** A node's whole configuration with the profile and this environment, layered as a node layers it. */
    private static Config node(Map<String, String> environment) {
        return NodeConfig.load(
                ConfigFactory.parseMap(environment).withFallback(ConfigFactory.parseResources("kubernetes.conf")));
    }

    @Test
    void theServiceRoutesToTheMcpPortOfTheDeploymentsPods() {
        JsonNode service = only("Service");
        assertEquals(
                deployment.at("/spec/template/metadata/labels/app").asText(),
                service.at("/spec/selector/app").asText());
        assertEquals("mcp", service.at("/spec/ports/0/targetPort").asText());
        // The Host clients send for the Service's name is one the node accepts.
        List<String> allowed = profile.getStringList("parley.http.allowed-hosts");
        String name = service.at("/metadata/name").asText();
        String namespace = service.at("/metadata/namespace").asText();
        assertEquals(namespace, profile.getString("pekko.discovery.kubernetes-api.pod-namespace"));
        for (String host : List.of(name, name + "." + namespace, name + "." + namespace + ".svc.cluster.local")) {
            assertTrue(allowed.contains(host), host + " not in " + allowed);
        }
    }

    @Test
    void probesUseTheManagementEndpointsTheCodeServes() {
        JsonNode readiness = container.get("readinessProbe").get("httpGet");
        JsonNode liveness = container.get("livenessProbe").get("httpGet");
        assertEquals(
                "/" + defaults.getString("pekko.management.health-checks.readiness-path"),
                readiness.get("path").asText());
        assertEquals(
                "/" + defaults.getString("pekko.management.health-checks.liveness-path"),
                liveness.get("path").asText());
        assertEquals("management", readiness.get("port").asText());
        assertEquals("management", liveness.get("port").asText());
    }

    @Test
    void terminationGraceCoversPreStopAndTheDrain() {
        NodeLifecycle.Settings drain = NodeLifecycle.Settings.from(profile.withFallback(defaults));
        int preStop = container.at("/lifecycle/preStop/sleep/seconds").asInt();
        int grace = deployment
                .at("/spec/template/spec/terminationGracePeriodSeconds")
                .asInt();
        int readinessPeriod = container.at("/readinessProbe/periodSeconds").asInt();
        assertTrue(preStop >= readinessPeriod, "the endpoints change while preStop sleeps");
        // preStop, the readiness delay, the in-flight requests, then the shards' hand-over and the
        // leaving (Pekko's phases, a few seconds; 10 s kept for them).
        long needed = preStop
                + drain.readinessDelay().toSeconds()
                + drain.inFlightTimeout().toSeconds()
                + 10;
        assertTrue(grace >= needed, "terminationGracePeriodSeconds " + grace + " < " + needed);
    }

    @Test
    void everyVariableTheProfileNeedsIsSet() throws IOException {
        Set<String> set = new HashSet<>();
        container.get("env").forEach(variable -> set.add(variable.get("name").asText()));
        for (String file : List.of("kubernetes.conf", "cluster.conf")) {
            Matcher substitution =
                    Pattern.compile("\\$\\{(\\??)([A-Z][A-Z0-9_]*)}").matcher(resource(file));
            while (substitution.find()) {
                boolean optional = substitution.group(1).equals("?");
                if (!optional) {
                    assertTrue(set.contains(substitution.group(2)), file + " needs " + substitution.group(2));
                }
            }
        }
    }

    @Test
    void secretReferencesNameTheKeysOfTheSecretTemplate() throws IOException {
        Map<String, Set<String>> template = new HashMap<>();
        for (JsonNode secret : documents(Files.readString(DEPLOY.resolve("secret.template.yaml")))) {
            Set<String> keys = new HashSet<>();
            secret.get("stringData").fieldNames().forEachRemaining(keys::add);
            template.put(secret.at("/metadata/name").asText(), keys);
        }
        int references = 0;
        for (JsonNode variable : container.get("env")) {
            JsonNode reference = variable.at("/valueFrom/secretKeyRef");
            if (!reference.isMissingNode()) {
                references++;
                String name = reference.get("name").asText();
                assertTrue(template.containsKey(name), "no Secret " + name + " in secret.template.yaml");
                assertTrue(
                        template.get(name).contains(reference.get("key").asText()),
                        name + " has no key " + reference.get("key"));
            }
        }
        assertEquals(5, references, "the journal (3) and the requestState key (2)");
        // The template is not applied with the rest: applying the kustomization never overwrites real secrets.
        assertTrue(manifests.stream()
                .noneMatch(manifest -> manifest.get("kind").asText().equals("Secret")));
    }

    @Test
    void thePodsMayListThePodsOfTheirNamespace() {
        JsonNode role = only("Role");
        JsonNode rule = role.at("/rules/0");
        assertTrue(rule.get("resources").toString().contains("\"pods\""));
        assertTrue(rule.get("verbs").toString().contains("\"list\""));
        JsonNode binding = only("RoleBinding");
        assertEquals(
                role.at("/metadata/name").asText(), binding.at("/roleRef/name").asText());
        String account = deployment.at("/spec/template/spec/serviceAccountName").asText();
        assertEquals(account, binding.at("/subjects/0/name").asText());
        assertEquals(account, only("ServiceAccount").at("/metadata/name").asText());
        // Bootstrap looks for app=<service-name>: the label the pods carry.
        String selector = String.format(
                profile.getString("pekko.discovery.kubernetes-api.pod-label-selector"),
                profile.getString("pekko.management.cluster.bootstrap.contact-point-discovery.service-name"));
        assertEquals(
                "app=" + deployment.at("/spec/template/metadata/labels/app").asText(), selector);
    }

    @Test
    void everyKeyTheProfileSetsExistsInTheDefaults() {
        List<String> unknown = new ArrayList<>();
        // kubernetes.conf and the cluster.conf it includes.
        for (Map.Entry<String, ConfigValue> entry : profile.entrySet()) {
            String path = entry.getKey();
            if (path.matches("[A-Z_]+")) {
                continue; // the environment
            }
            if (!defaults.hasPathOrNull(path)) {
                unknown.add(path);
            }
        }
        assertEquals(List.of(), unknown, "keys of kubernetes.conf that nothing reads");
    }

    private static Map<String, Integer> containerPorts() {
        Map<String, Integer> ports = new HashMap<>();
        container
                .get("ports")
                .forEach(port -> ports.put(
                        port.get("name").asText(), port.get("containerPort").asInt()));
        return ports;
    }

    private static JsonNode envVariable(String name) {
        for (JsonNode variable : container.get("env")) {
            if (variable.get("name").asText().equals(name)) {
                return variable;
            }
        }
        return fail("no " + name + " in the Deployment's env");
    }

    private static JsonNode only(String kind) {
        List<JsonNode> found = manifests.stream()
                .filter(manifest -> manifest.get("kind").asText().equals(kind))
                .toList();
        assertEquals(1, found.size(), "one " + kind);
        return found.get(0);
    }

    /** {@code kubectl kustomize deploy/kubernetes}, or the kustomization's resources without kubectl. */
    private static List<JsonNode> rendered() throws Exception {
        if (onPath("kubectl")) {
            Process kubectl = new ProcessBuilder("kubectl", "kustomize", DEPLOY.toString())
                    .redirectErrorStream(false)
                    .start();
            String out = new String(kubectl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            String err = new String(kubectl.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(kubectl.waitFor(120, TimeUnit.SECONDS), "kubectl kustomize did not finish");
            assertEquals(0, kubectl.exitValue(), "kubectl kustomize failed: " + err);
            return documents(out);
        }
        JsonNode kustomization =
                YAML.readTree(DEPLOY.resolve("kustomization.yaml").toFile());
        Set<String> fields = new HashSet<>();
        kustomization.fieldNames().forEachRemaining(fields::add);
        // Read directly, the files are what kustomize renders only while it transforms nothing else.
        assertTrue(
                Set.of("apiVersion", "kind", "namespace", "resources").containsAll(fields),
                "kustomization.yaml uses more than resources and namespace: " + fields);
        List<JsonNode> all = new ArrayList<>();
        for (JsonNode resource : kustomization.get("resources")) {
            all.addAll(documents(Files.readString(DEPLOY.resolve(resource.asText()))));
        }
        if (kustomization.has("namespace")) { // what kustomize's namespace does to the objects checked here
            all.stream()
                    .filter(manifest -> !manifest.get("kind").asText().equals("Namespace"))
                    .forEach(manifest -> ((ObjectNode) manifest.get("metadata"))
                            .put("namespace", kustomization.get("namespace").asText()));
        }
        return all;
    }

    private static List<JsonNode> documents(String yaml) throws IOException {
        List<JsonNode> documents = new ArrayList<>();
        try (MappingIterator<JsonNode> iterator =
                YAML.readerFor(JsonNode.class).readValues(new YAMLFactory().createParser(yaml))) {
            while (iterator.hasNext()) {
                JsonNode document = iterator.next();
                if (document != null && !document.isNull() && !document.isEmpty()) {
                    documents.add(document);
                }
            }
        }
        return documents;
    }

    private static String resource(String name) throws IOException {
        try (var in = KubernetesManifestTest.class.getClassLoader().getResourceAsStream(name)) {
            assertTrue(in != null, "no resource " + name);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static boolean onPath(String command) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String directory : path.split(java.io.File.pathSeparator)) {
            if (Files.isExecutable(Path.of(directory, command))) {
                return true;
            }
        }
        return false;
    }
}
