/*
 * Copyright 2026 the MetaRoCE authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 * https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package io.metaroce.dist;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a user of the artifacts reads, pinned to what the build makes: the README's example is the code of
 * {@code examples/getting-started}, its Maven snippet is that project's, the BOM lists every published module at the
 * project's version, every module names its automatic module, and the launcher lists every tool once.
 */
class PackagingTest
{
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final String SECTION = "## Use it as a library";

    @Test
    void shouldShowTheExampleSourceVerbatimInTheReadme() throws Exception
    {
        final String source = Files.readString(
            ROOT.resolve("examples/getting-started/src/main/java/example/GettingStarted.java"), StandardCharsets.UTF_8);
        final String code = source.substring(source.indexOf("package example;"));

        assertEquals(code, readmeBlock("java"));
    }

    @Test
    void shouldShowTheExampleProjectsDependenciesInTheReadme() throws Exception
    {
        final List<String> pom = strippedLines(Files.readString(
            ROOT.resolve("examples/getting-started/pom.xml"), StandardCharsets.UTF_8));
        final List<String> snippet = strippedLines(readmeBlock("xml"));

        assertTrue(snippet.size() > 10 && indexOf(pom, snippet) >= 0,
            "the README's Maven snippet is not part of examples/getting-started/pom.xml: " + snippet);
        assertTrue(snippet.contains("<version>" + projectVersion() + "</version>"), snippet.toString());
    }

    @Test
    void shouldListEveryPublishedModuleInTheBomAtTheProjectVersion() throws Exception
    {
        final Document bom = parse(ROOT.resolve("bom/pom.xml"));
        assertEquals(projectVersion(), childText(bom.getDocumentElement(), "version"));

        final Set<String> listed = new TreeSet<>();
        final NodeList dependencies = bom.getElementsByTagName("dependency");
        for (int i = 0; i < dependencies.getLength(); i++)
        {
            final Element dependency = (Element)dependencies.item(i);
            listed.add(childText(dependency, "artifactId"));
            assertEquals("${project.version}", childText(dependency, "version"));
        }

        final Set<String> published = new TreeSet<>();
        for (final String module : modules())
        {
            final Document pom = parse(ROOT.resolve(module).resolve("pom.xml"));
            if (!"true".equals(property(pom, "maven.install.skip")))
            {
                published.add(childText(pom.getDocumentElement(), "artifactId"));
            }
        }
        assertEquals(published, listed);
    }

    @Test
    void shouldCarryTheMetadataMavenCentralRequiresInTheParentAndTheBom() throws Exception
    {
        final Element parent = parse(ROOT.resolve("pom.xml")).getDocumentElement();
        final String home = property(parent.getOwnerDocument(), "metaroce.home.url");
        assertTrue(null != home && home.startsWith("https://"), "metaroce.home.url: " + home);
        final String license = Files.readString(ROOT.resolve("LICENSE"), StandardCharsets.UTF_8);
        assertTrue(license.strip().startsWith("Apache License\n") && license.contains("Version 2.0, January 2004"),
            "LICENSE is not the Apache License 2.0 that the POMs name");

        for (final Element pom : List.of(parent, parse(ROOT.resolve("bom/pom.xml")).getDocumentElement()))
        {
            final String where = childText(pom, "artifactId") + ": ";
            assertTrue(null != childText(pom, "name") && null != childText(pom, "description"), where + "name");
            assertEquals(home, resolved(childText(pom, "url"), home), where + "url");
            final Element licenseElement = child(child(pom, "licenses"), "license");
            assertEquals("Apache License, Version 2.0", childText(licenseElement, "name"), where + "licence");
            assertEquals("https://www.apache.org/licenses/LICENSE-2.0.txt", childText(licenseElement, "url"));
            assertTrue(null != childText(child(child(pom, "developers"), "developer"), "name"), where + "developer");
            final Element scm = child(pom, "scm");
            assertEquals("scm:git:" + home + ".git", resolved(childText(scm, "connection"), home), where + "scm");
            assertEquals("scm:git:" + home + ".git", resolved(childText(scm, "developerConnection"), home), where);
            assertEquals(home, resolved(childText(scm, "url"), home), where + "scm url");
            assertEquals(home + "/issues", resolved(childText(child(pom, "issueManagement"), "url"), home), where);
            assertTrue(profileIds(pom).contains("release-signing"), where + "no release-signing profile");
        }

        assertTrue(profileIds(parent).contains("release"), "no release profile in the parent POM");
        final String timestamp = property(parent.getOwnerDocument(), "project.build.outputTimestamp");
        assertTrue(null != timestamp && Instant.parse(timestamp).isAfter(Instant.parse("2026-01-01T00:00:00Z")),
            "project.build.outputTimestamp: " + timestamp);
    }

    @Test
    void shouldNameAnAutomaticModuleInEveryJarModule() throws Exception
    {
        final Set<String> names = new HashSet<>();
        for (final String module : modules())
        {
            final String name = property(parse(ROOT.resolve(module).resolve("pom.xml")), "automatic.module.name");
            assertTrue(null != name && name.matches("io\\.metaroce(\\.[a-z]+)+"), module + ": " + name);
            assertTrue(names.add(name), "two modules named " + name);
        }
    }

    @Test
    void shouldListEveryToolOnceInTheLaunchersHelp()
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ToolLauncher.printUsage(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        final String usage = bytes.toString(StandardCharsets.UTF_8);

        final Set<String> names = new HashSet<>();
        for (final ToolLauncher.Tool tool : ToolLauncher.TOOLS)
        {
            assertTrue(names.add(tool.name()), "two tools named " + tool.name());
            assertTrue(tool.name().matches("[a-z][a-z-]*"), tool.name());
            assertTrue(usage.contains("\n  " + tool.name() + " "), usage);
            assertEquals(tool, ToolLauncher.find(tool.name()));
        }
        assertEquals("driver", ToolLauncher.TOOLS.get(0).name());
    }

    private static String readmeBlock(final String language) throws Exception
    {
        final String readme = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
        final int section = readme.indexOf("\n" + SECTION + "\n");
        assertTrue(section >= 0, "README.md has no section " + SECTION);
        final String fence = "\n```" + language + "\n";
        final int start = readme.indexOf(fence, section);
        assertTrue(start >= 0 && start < readme.indexOf("\n## ", section + 1),
            "no " + language + " block in " + SECTION);
        final int from = start + fence.length();

        return readme.substring(from, readme.indexOf("```\n", from));
    }

    private static List<String> strippedLines(final String text)
    {
        final List<String> lines = new ArrayList<>();
        for (final String line : text.split("\n"))
        {
            if (!line.isBlank())
            {
                lines.add(line.strip());
            }
        }
        return lines;
    }

    private static int indexOf(final List<String> lines, final List<String> run)
    {
        for (int i = 0; i + run.size() <= lines.size(); i++)
        {
            if (lines.subList(i, i + run.size()).equals(run))
            {
                return i;
            }
        }
        return -1;
    }

    private static String projectVersion() throws Exception
    {
        return childText(parse(ROOT.resolve("pom.xml")).getDocumentElement(), "version");
    }

    private static List<String> modules() throws Exception
    {
        final List<String> modules = new ArrayList<>();
        final NodeList nodes = parse(ROOT.resolve("pom.xml")).getElementsByTagName("module");
        for (int i = 0; i < nodes.getLength(); i++)
        {
            final String module = nodes.item(i).getTextContent().strip();
            if (!"bom".equals(module))
            {
                modules.add(module);
            }
        }
        assertTrue(modules.contains("client") && modules.contains("driver-dist"), modules.toString());
        return modules;
    }

    private static String resolved(final String value, final String home)
    {
        return null == value ? null : value.replace("${metaroce.home.url}", home);
    }

    private static Set<String> profileIds(final Element pom)
    {
        final Set<String> ids = new TreeSet<>();
        final Element profiles = child(pom, "profiles");
        for (Node node = null == profiles ? null : profiles.getFirstChild(); null != node; node = node.getNextSibling())
        {
            if (node instanceof Element)
            {
                ids.add(childText((Element)node, "id"));
            }
        }
        return ids;
    }

    private static String property(final Document pom, final String name)
    {
        final Element properties = child(pom.getDocumentElement(), "properties");
        return null == properties ? null : childText(properties, name);
    }

    private static Element child(final Element parent, final String name)
    {
        for (Node node = parent.getFirstChild(); null != node; node = node.getNextSibling())
        {
            if (node instanceof Element && name.equals(node.getNodeName()))
            {
                return (Element)node;
            }
        }
        return null;
    }

    private static String childText(final Element parent, final String name)
    {
        final Element child = child(parent, name);
        return null == child ? null : child.getTextContent().strip();
    }

    private static Document parse(final Path file) throws Exception
    {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
    }
}
