package io.github.agentlb.camel.http;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The code blocks of the project's Markdown pages, as printed, and the README's route on test ports. */
public final class DocBlocks {

    /** The project's root, seen from this module. */
    static final Path ROOT = Path.of("..");
    private static final Pattern CLASS_NAME = Pattern.compile("public (?:final )?class (\\w+)");

    private DocBlocks() {
    }

    /**
     * The {@code ```language} blocks of {@code page} (relative to the project's root), in order,
     * without the indentation of a block inside a list item.
     */
    public static List<String> blocks(String page, String language) throws IOException {
        Matcher block = Pattern.compile("(?m)^( *)```" + language + "\\R(.*?)\\R\\1```", Pattern.DOTALL)
                .matcher(Files.readString(ROOT.resolve(page)));
        List<String> found = new ArrayList<>();
        while (block.find()) {
            found.add(block.group(2).replaceAll("(?m)^" + block.group(1), ""));
        }
        return found;
    }

    /** The README's route class, the first java block of README.md. */
    static String readmeRoute() throws IOException {
        return blocks("README.md", "java").get(0);
    }

    /** The name of the public class a whole Java file declares, with the file's package if it has one. */
    public static String className(String source) {
        Matcher name = CLASS_NAME.matcher(source);
        if (!name.find()) {
            throw new AssertionError("no public class in:\n" + source);
        }
        Matcher pkg = Pattern.compile("(?m)^package ([\\w.]+);").matcher(source);
        return pkg.find() ? pkg.group(1) + "." + name.group(1) : name.group(1);
    }

    /**
     * {@code route} with its documented ports replaced: {@code :8000/} by {@code port}, and
     * {@code localhost:8081}..{@code 8083} by the given agent ports, in order.
     */
    static String onPorts(String route, int port, List<Integer> agentPorts) {
        if (!route.contains(":8000/") || !route.contains("localhost:8081")) {
            throw new AssertionError("the route has no :8000/ or localhost:8081 to replace:\n" + route);
        }
        String moved = route.replace(":8000/", ":" + port + "/");
        for (int i = 0; i < agentPorts.size(); i++) {
            moved = moved.replace("localhost:808" + (i + 1), "localhost:" + agentPorts.get(i));
        }
        return moved;
    }
}
