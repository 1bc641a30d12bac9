package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringWriter;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.apache.camel.RoutesBuilder;

/** Compiles a documented route example, as a user would paste it, into a {@link RoutesBuilder}. */
public final class ExampleRoutes {

    private ExampleRoutes() {
    }


    /**
     * {@code body} as the {@code configure()} of a {@code RouteBuilder} named {@code className},
     * with the library's packages, {@code org.apache.camel.Exchange} and {@code RouteBuilder} imported.
     *
     * @param work where the source and the class are written
     */
    public static RoutesBuilder compile(Path work, String className, String body) throws Exception {
        String source = "package example;\n"
                + "import io.github.agentlb.camel.*;\n"
                + "import io.github.agentlb.core.avn.AdaptiveVirtualNodesConfig;\n"
                + "import io.github.agentlb.core.hash.HashAlgorithm;\n"
                + "import io.github.agentlb.core.pid.PidWeightsConfig;\n"
                + "import org.apache.camel.Exchange;\n"
                + "import org.apache.camel.builder.RouteBuilder;\n"
                + "public class " + className + " extends RouteBuilder {\n"
                + "  @Override public void configure() throws Exception {\n" + body + "\n  }\n}\n";
        return (RoutesBuilder) compileClass(work, "example." + className, source).getDeclaredConstructor().newInstance();
    }

    /**
     * Compiles {@code source}, a whole Java file as a reader would paste it, with the test
     * classpath, and loads its class {@code className} (with its package, if any).
     *
     * @param work where the source and the class are written
     */
    public static Class<?> compileClass(Path work, String className, String source) throws Exception {
        Path file = work.resolve(className.replace('.', '/') + ".java");
        Files.createDirectories(file.getParent());
        Files.writeString(file, source);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        StringWriter errors = new StringWriter();
        boolean compiled = javac.getTask(errors, null, null,
                List.of("-classpath", classpath, "-d", work.toString(), "-proc:none"), null,
                javac.getStandardFileManager(null, null, StandardCharsets.UTF_8).getJavaFileObjects(file.toFile()))
                .call();
        assertThat(compiled).as("the example compiles:\n" + source + "\n" + errors).isTrue();
        URLClassLoader loader = new URLClassLoader(new java.net.URL[] {work.toUri().toURL()}, ExampleRoutes.class.getClassLoader());
        return loader.loadClass(className);
    }
}
