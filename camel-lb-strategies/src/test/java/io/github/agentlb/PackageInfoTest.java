package io.github.agentlb;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Every package of the library has a {@code package-info.java}, so its Javadoc says what it is for. */
class PackageInfoTest {

    @Test
    void everyPackageHasAPackageInfo() throws IOException {
        List<Path> packages;
        try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
            packages = files.filter(f -> f.toString().endsWith(".java")).map(Path::getParent).distinct().toList();
        }
        assertThat(packages).isNotEmpty();
        assertThat(packages).allSatisfy(dir -> assertThat(dir.resolve("package-info.java")).exists());
    }
}
