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

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The Prometheus rules and the Grafana dashboard of the distribution, checked by Prometheus's own {@code promtool}:
 * the rules file is valid, its alerts fire as {@code src/test/resources/metaroce-rules-test.yml} expects, and every
 * query of the dashboard parses. Without {@code promtool} on the PATH the tests fail when the environment variable
 * {@code CI} is set, and are skipped with the reason otherwise.
 */
class MonitoringRulesTest
{
    private static final long PROMTOOL_TIMEOUT_S = 60;
    private static String promtool;

    @BeforeAll
    static void findPromtool()
    {
        for (final String directory : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
        {
            final File candidate = new File(directory, "promtool");
            if (!directory.isEmpty() && candidate.canExecute())
            {
                promtool = candidate.getPath();
                return;
            }
        }

        final String why = "promtool is not on the PATH: install it with Debian's prometheus package " +
            "(apt-get install -y prometheus), or from a Prometheus release archive";
        if (null != System.getenv("CI"))
        {
            fail(why + " (CI is set, so the rules must be checked)");
        }
        System.out.println("MonitoringRulesTest skipped: " + why);
        Assumptions.abort(why);
    }

    @Test
    void shouldPassPromtoolsCheckOfTheRules() throws Exception
    {
        final String output = promtool("check", "rules", MonitoringFiles.RULES.toString());

        assertTrue(output.contains("SUCCESS"), output);
    }

    @Test
    void shouldFireTheAlertsThatTheRuleTestsExpect() throws Exception
    {
        promtool("test", "rules", Path.of("src/test/resources/metaroce-rules-test.yml").toString());
    }

    @Test
    void shouldParseEveryQueryOfTheDashboard() throws Exception
    {
        // promtool checks PromQL only in rules: each query becomes a recording rule, with Grafana's variables set.
        final List<String> queries = MonitoringFiles.dashboardQueries();
        final StringBuilder rules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
        for (int i = 0; i < queries.size(); i++)
        {
            final String query = queries.get(i)
                .replace("$__rate_interval", "1m")
                .replace("$instance", ".*");
            assertTrue(!query.contains("$"), "a Grafana variable the test does not know: " + query);
            rules.append("      - record: dashboard:query_").append(i).append('\n')
                .append("        expr: '").append(query.replace("'", "''")).append("'\n");
        }

        final Path file = Files.createTempFile("metaroce-dashboard-queries-", ".yml");
        try
        {
            Files.writeString(file, rules.toString(), StandardCharsets.UTF_8);
            final String output = promtool("check", "rules", file.toString());
            assertTrue(output.contains("SUCCESS: " + queries.size() + " rules found"), output);
        }
        finally
        {
            Files.delete(file);
        }
    }

    private static String promtool(final String... args) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>();
        command.add(promtool);
        command.addAll(List.of(args));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(PROMTOOL_TIMEOUT_S, TimeUnit.SECONDS), "promtool still runs: " + command);
        assertEquals(0, process.exitValue(), String.join(" ", command) + "\n" + output);

        return output;
    }
}
