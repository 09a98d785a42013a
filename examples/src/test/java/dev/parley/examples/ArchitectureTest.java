package dev.parley.examples;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module layering and the public surface, checked with ArchUnit on the main classes of every
 * module (this module's test classpath holds them all).
 */
class ArchitectureTest {
    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.contains("-tests.jar"))
                .importPackages("dev.parley");
    }

    @Test
    void modulesDependOneWay() {
        layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer("runtime")
                .definedBy("dev.parley.runtime..")
                .layer("testkit")
                .definedBy("dev.parley.testkit..")
                .layer("persistence")
                .definedBy("dev.parley.persistence..")
                .layer("actors")
                .definedBy("dev.parley.actors..")
                .layer("http")
                .definedBy("dev.parley.http..")
                .layer("examples")
                .definedBy("dev.parley.examples..")
                .whereLayer("examples")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("http")
                .mayOnlyBeAccessedByLayers("examples")
                .whereLayer("actors")
                .mayOnlyBeAccessedByLayers("http", "examples")
                .whereLayer("persistence")
                .mayOnlyBeAccessedByLayers("actors", "http", "examples")
                .whereLayer("testkit")
                .mayOnlyBeAccessedByLayers("http", "examples")
                .check(classes);
    }

    /**
     * The other modules' {@code internal} packages each module uses. The modules ship together, so
     * a module may reach into the internals of a module below it; this list keeps that reach from
     * growing unnoticed (a new entry is a decision, made here). {@code examples} is written as an
     * author writes a server: public API only.
     */
    private static final Map<String, Set<String>> INTERNAL_REACH = Map.of(
            "runtime", Set.of(),
            // events carry questions, answers and JSON-RPC errors
            "persistence", Set.of("runtime.internal.engine", "runtime.internal.wire"),
            // the replay check reads recordings and questions
            "testkit", Set.of("runtime.internal.engine", "runtime.internal.wire"),
            "actors",
                    Set.of(
                            "persistence.internal",
                            "runtime.internal.engine",
                            "runtime.internal.logging",
                            "runtime.internal.state",
                            "runtime.internal.wire"),
            "http",
                    Set.of(
                            "actors.internal",
                            "actors.internal.journal",
                            "actors.internal.ops",
                            "actors.internal.pipeline",
                            "persistence.internal",
                            "runtime.internal.engine",
                            "runtime.internal.state",
                            "runtime.internal.wire"),
            "examples", Set.of());

    @Test
    void eachModuleReachesOnlyTheListedInternalsOfOtherModules() {
        Map<String, Set<String>> reach = new TreeMap<>();
        INTERNAL_REACH.keySet().forEach(module -> reach.put(module, new TreeSet<>()));
        for (JavaClass origin : classes) {
            String from = module(origin);
            origin.getDirectDependenciesFromSelf().forEach(dependency -> {
                JavaClass target = dependency.getTargetClass();
                if (isInternal(target) && !module(target).equals(from)) {
                    reach.get(from).add(target.getPackageName().substring("dev.parley.".length()));
                }
            });
        }
        assertEquals(
                new TreeMap<>(INTERNAL_REACH),
                reach,
                "a new entry needs a reason in INTERNAL_REACH; a gone one leaves it");
    }

    /**
     * Public API that exposes an internal type today, as {@code Owner.member -> InternalType}. Frozen:
     * nothing may be added, and an entry goes once its member stops exposing the type. Each is kept
     * because its fix belongs to a change under way elsewhere.
     */
    private static final Set<String> FROZEN_EXPOSURES = Set.of(
            // InputQuestion's one method renders the question on the wire (interface methods are public).
            "dev.parley.runtime.InputQuestion.toInputRequest -> dev.parley.runtime.internal.wire.Mrtr$InputRequest",
            "dev.parley.runtime.Elicitation$Form.toInputRequest -> dev.parley.runtime.internal.wire.Mrtr$InputRequest",
            "dev.parley.runtime.Elicitation$Url.toInputRequest -> dev.parley.runtime.internal.wire.Mrtr$InputRequest",
            "dev.parley.runtime.RootsRequest.toInputRequest -> dev.parley.runtime.internal.wire.Mrtr$InputRequest",
            "dev.parley.runtime.SamplingRequest.toInputRequest -> dev.parley.runtime.internal.wire.Mrtr$InputRequest",
            // Definitions render their own wire records for the catalog.
            "dev.parley.runtime.ToolDefinition.info -> dev.parley.runtime.internal.wire.Tools$ToolInfo",
            "dev.parley.runtime.McpServerDefinition.serverInfo -> dev.parley.runtime.internal.wire.Discovery$Implementation",
            // The node hands its pipeline to the transports.
            "dev.parley.actors.ParleyNode.pipeline -> dev.parley.actors.internal.pipeline.McpPipeline",
            // The authorization hook sees the typed request and reply of the pipeline.
            "dev.parley.http.auth.RequestAuthorization.refuseByBody -> dev.parley.runtime.internal.wire.JsonRpc$Message",
            "dev.parley.http.auth.RequestAuthorization.visible -> dev.parley.actors.internal.pipeline.McpRequest",
            "dev.parley.http.auth.RequestAuthorization.visible -> dev.parley.actors.internal.pipeline.McpReply$Final",
            // The test kit hands out the recording format (which holds internal questions and answers).
            "dev.parley.testkit.ToolTestKit.recording -> dev.parley.runtime.internal.engine.CallRecording",
            "dev.parley.testkit.ReplayCheck.read -> dev.parley.runtime.internal.engine.CallRecording",
            "dev.parley.testkit.ReplayCheck.check -> dev.parley.runtime.internal.engine.CallRecording");

    @Test
    void noPublicApiExposesAnInternalTypeBeyondTheFrozenList() {
        assertEquals(new TreeSet<>(FROZEN_EXPOSURES), exposures(), "public API exposing internal types");
    }

    /**
     * Every public or protected field, method and constructor of a public class outside the
     * {@code internal} packages, with each internal type in its signature (generics included).
     */
    private static Set<String> exposures() {
        Set<String> found = new TreeSet<>();
        for (JavaClass owner : classes) {
            if (isInternal(owner) || !isPublicApi(owner)) {
                continue;
            }
            for (JavaMember member : owner.getMembers()) {
                if (!member.getModifiers().contains(JavaModifier.PUBLIC)
                        && !member.getModifiers().contains(JavaModifier.PROTECTED)) {
                    continue;
                }
                Stream<JavaType> types = member instanceof JavaField field
                        ? Stream.of(field.getType())
                        : Stream.concat(
                                Stream.of(((JavaCodeUnit) member).getReturnType()),
                                ((JavaCodeUnit) member).getParameterTypes().stream());
                types.flatMap(type -> type.getAllInvolvedRawTypes().stream())
                        .filter(ArchitectureTest::isInternal)
                        .map(type -> owner.getName() + "." + member.getName() + " -> " + type.getName())
                        .forEach(found::add);
            }
        }
        return found;
    }

    private static boolean isInternal(JavaClass type) {
        return type.getPackageName().startsWith("dev.parley.")
                && type.getPackageName().contains(".internal");
    }

    /** Public, and so are the classes it is nested in. */
    private static boolean isPublicApi(JavaClass type) {
        for (JavaClass at = type; at != null; at = at.getEnclosingClass().orElse(null)) {
            if (!at.getModifiers().contains(JavaModifier.PUBLIC)) {
                return false;
            }
        }
        return true;
    }

    private static String module(JavaClass type) {
        return type.getPackageName().split("\\.")[2];
    }
}
