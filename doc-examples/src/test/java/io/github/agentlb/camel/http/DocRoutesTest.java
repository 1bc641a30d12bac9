package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.camel.RoutesBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every route the documentation shows compiles as printed, imports included: each java block of
 * the Markdown pages (README.md, docs/, the modules' READMEs) that has a {@code from(...)} is a
 * whole class, compiled alone with the library on the class path, and is a {@link RoutesBuilder}.
 */
class DocRoutesTest {

    @TempDir
    Path work;

    /** The Markdown pages, relative to the project's root. */
    private static List<String> pages() throws IOException {
        List<String> pages = new ArrayList<>(List.of("README.md"));
        try (Stream<Path> docs = Files.list(DocBlocks.ROOT.resolve("docs"));
                Stream<Path> modules = Files.list(DocBlocks.ROOT)) {
            docs.filter(p -> p.toString().endsWith(".md")).forEach(p -> pages.add("docs/" + p.getFileName()));
            modules.filter(p -> Files.exists(p.resolve("README.md"))).forEach(p -> pages.add(p.getFileName() + "/README.md"));
        }
        return pages;
    }

    @Test
    void everyRouteShownCompilesAsPrinted() throws Exception {
        int routes = 0;
        for (String page : pages()) {
            List<String> blocks = DocBlocks.blocks(page, "java");
            for (int i = 0; i < blocks.size(); i++) {
                String block = blocks.get(i);
                if (!block.contains("from(\"")) {
                    continue;
                }
                String where = page + ", java block " + (i + 1);
                assertThat(block).as(where + ": a route is printed as a whole class with its imports")
                        .contains("import ").containsPattern("public (final )?class \\w+");
                Class<?> type = ExampleRoutes.compileClass(work.resolve("route" + routes), DocBlocks.className(block), block);
                assertThat(RoutesBuilder.class.isAssignableFrom(type)).as(where).isTrue();
                routes++;
            }
        }
        assertThat(routes).as("routes found (README, using-the-strategies x2, llm-agents)").isGreaterThanOrEqualTo(4);
    }

    /** The simple names of the public types in the modules' main sources, with their packages. */
    private static java.util.Map<String, String> projectTypes() throws IOException {
        java.util.Map<String, String> types = new java.util.HashMap<>();
        try (Stream<Path> files = Files.walk(DocBlocks.ROOT, 12)) {
            for (Path file : files.filter(f -> f.toString().replace('\\', '/').contains("/src/main/java/")
                    && f.toString().endsWith(".java") && !f.getFileName().toString().contains("-")).toList()) {
                Matcher pkg = Pattern.compile("(?m)^package ([\\w.]+);").matcher(Files.readString(file));
                if (pkg.find()) {
                    types.put(file.getFileName().toString().replace(".java", ""), pkg.group(1));
                }
            }
        }
        return types;
    }

    /**
     * Every java block (a whole class or a fragment) that uses a type of this project by its simple
     * name imports it, so it compiles as printed once pasted where its variables are.
     */
    @Test
    void everyJavaBlockImportsTheProjectTypesItNames() throws Exception {
        java.util.Map<String, String> types = projectTypes();
        assertThat(types).containsEntry("LearnedSessions", "io.github.agentlb.core.session");
        Set<String> missing = new TreeSet<>();
        for (String page : pages()) {
            List<String> blocks = DocBlocks.blocks(page, "java");
            for (int i = 0; i < blocks.size(); i++) {
                String block = blocks.get(i);
                Set<String> imported = block.lines().filter(line -> line.startsWith("import "))
                        .map(line -> line.replaceAll("//.*", "").strip()).collect(Collectors.toSet());
                Matcher name = Pattern.compile("(?<![\\w.\"])([A-Z]\\w+)\\b").matcher(block.replaceAll("//.*", ""));
                while (name.find()) {
                    String type = name.group(1);
                    String pkg = types.get(type);
                    if (pkg != null && !imported.contains("import " + pkg + "." + type + ";")
                            && !imported.contains("import " + pkg + ".*;")
                            && !block.contains("class " + type + " ")) {
                        missing.add(page + ", java block " + (i + 1) + ": " + pkg + "." + type);
                    }
                }
            }
        }
        assertThat(missing).as("project types used without their import").isEmpty();
    }
}
