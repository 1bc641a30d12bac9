#!/usr/bin/env bash
# Builds user-project (camel-bom and agent-load-balancer-bom imported, no versions written) against
# the library as packaged in target/ by `mvn -Prelease -pl bom,camel-lb-strategies,camel-lb-http -DskipTests package`
# (-Prelease: with the Javadoc jars it installs).
# (doc-examples' ReadmeProjectIT builds and runs README step 5's project the same way, in mvn verify.)
# Nothing is written to ~/.m2: the library goes to a temporary repository, the build uses a
# temporary local repository and reads everything else from ~/.m2 (or Maven Central if absent).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work" "$here/user-project/target"' EXIT
version=0.1.0-SNAPSHOT
install() {
  mvn -q org.apache.maven.plugins:maven-install-plugin:3.1.3:install-file -DlocalRepositoryPath="$work/lib" "$@"
}
install -Dfile="$root/bom/pom.xml" -DpomFile="$root/bom/pom.xml"
install -Dfile="$root/pom.xml" -DpomFile="$root/pom.xml"
for module in camel-lb-strategies camel-lb-http; do
  jar="$root/$module/target/$module-$version"
  install -Dfile="$jar.jar" -DpomFile="$root/$module/pom.xml" \
    -Dsources="$jar-sources.jar" -Djavadoc="$jar-javadoc.jar"
done
cat > "$work/settings.xml" <<XML
<settings>
  <profiles><profile><id>local</id><repositories>
    <repository><id>library</id><url>file://$work/lib</url><snapshots><enabled>true</enabled></snapshots></repository>
    <repository><id>home</id><url>file://$HOME/.m2/repository</url></repository>
  </repositories><pluginRepositories>
    <pluginRepository><id>home</id><url>file://$HOME/.m2/repository</url></pluginRepository>
  </pluginRepositories></profile></profiles>
  <activeProfiles><activeProfile>local</activeProfile></activeProfiles>
</settings>
XML
cd "$here/user-project"
mvn -q -s "$work/settings.xml" -Dmaven.repo.local="$work/m2" compile dependency:list -DoutputFile="$work/deps.txt"
grep -E 'camel-lb-strategies|camel-lb-http|micrometer' "$work/deps.txt"
# Micrometer's modules must share one version (the BOM imports micrometer-bom, not micrometer-core alone).
versions=$(grep -oE 'io\.micrometer:[a-z-]+:jar:[^:]+' "$work/deps.txt" | awk -F: '{print $4}' | sort -u)
[ "$(echo "$versions" | wc -l)" -eq 1 ] || { echo "Micrometer modules at different versions: $versions" >&2; exit 1; }
echo "user-project compiled with versions from agent-load-balancer-bom"
